// Tables: every table, sortable and filterable, paginated (the state is in the URL).
import { api, h, table, cell, bytes, count, duration, time, state, health, tableLink, errorText } from './ui.js';

const PAGE = 50;
const STATES = ['idle', 'pending', 'running', 'backoff', 'quarantined', 'paused', 'disabled', 'failed'];
const COLUMNS = [
  { label: 'table', sort: 'table' },
  { label: 'catalog', sort: 'catalog', narrow: true },
  { label: 'state', sort: 'state' },
  { label: 'health', sort: 'health', num: true },
  { label: 'data files', sort: 'data_files', num: true, narrow: true },
  { label: 'small files', sort: 'small_files', num: true },
  { label: 'delete files', sort: 'delete_files', num: true },
  { label: 'backlog', sort: 'backlog_bytes', num: true },
  { label: 'last optimized', sort: 'last_optimized_at', narrow: true },
  { label: 'freshness', sort: 'freshness_ms', num: true, narrow: true },
];
const FILTERS = ['q', 'catalog', 'namespace', 'state', 'health_below'];

export async function render(main, params) {
  const query = new URLSearchParams();
  for (const name of [...FILTERS, 'sort', 'offset']) {
    if (params.get(name)) query.set(name, params.get(name));
  }
  query.set('limit', String(PAGE));
  main.replaceChildren(h('h1', {}, 'Tables'), filters(params), h('div', { id: 'tables' }));
  const target = document.getElementById('tables');
  let page;
  try {
    page = await api('/api/v1/tables?' + query);
  } catch (error) {
    target.replaceChildren(errorText(error));
    return;
  }
  const offset = Number(params.get('offset') || 0);
  target.replaceChildren(
    h('p', { class: 'muted', id: 'tables-count' },
      page.total === 0 ? 'No table matches.' :
        `Tables ${offset + 1}–${offset + page.tables.length} of ${count(page.total)}`),
    h('div', { class: 'panel' },
      h('table', { id: 'tables-table' },
        h('thead', {}, h('tr', {}, COLUMNS.map((c) => header(c, params)))),
        h('tbody', { id: 'tables-body' }, page.tables.map(row)))),
    pager(params, offset, page.total));
}

function filters(params) {
  const input = (name, label, attributes = {}) =>
    h('label', {}, label, h('input', { name, value: params.get(name) || '', ...attributes }));
  return h('form', { class: 'filters', id: 'filters', method: 'get', action: '/tables' },
    input('q', 'name contains', { type: 'search', placeholder: 'orders' }),
    input('catalog', 'catalog'),
    input('namespace', 'namespace'),
    h('label', {}, 'state', h('select', { name: 'state' },
      h('option', { value: '' }, 'any'),
      STATES.map((s) => h('option', { value: s, selected: params.get('state') === s }, s)))),
    input('health_below', 'health below', { type: 'number', min: 0, max: 101 }),
    params.get('sort') ? h('input', { type: 'hidden', name: 'sort', value: params.get('sort') }) : null,
    h('button', { type: 'submit', class: 'primary' }, 'Filter'));
}

function header(column, params) {
  const current = params.get('sort') || '';
  const ascending = current === column.sort;
  const next = new URLSearchParams(params);
  next.delete('offset');
  next.set('sort', ascending ? '-' + column.sort : column.sort);
  const mark = ascending ? ' ▲' : current === '-' + column.sort ? ' ▼' : '';
  return h('th', { class: [column.num ? 'num' : '', column.narrow ? 'hide-narrow' : ''].join(' ').trim() || null },
    h('a', { href: '/tables?' + next, 'data-sort': column.sort }, column.label + mark));
}

function row(t) {
  return h('tr', { 'data-table': t.table, 'data-catalog': t.catalog },
    cell(tableLink(t.table, t.catalog)),
    cell(t.catalog, { narrow: true }),
    cell(state(t.state)),
    cell(health(t.health), { num: true }),
    cell(count(t.data_files), { num: true, narrow: true }),
    cell(count(t.small_files), { num: true }),
    cell(count(t.delete_files), { num: true }),
    cell(bytes(t.backlog_bytes), { num: true }),
    cell(time(t.last_optimized_at), { narrow: true }),
    cell(duration(t.freshness_ms), { num: true, narrow: true }));
}

function pager(params, offset, total) {
  const link = (label, to, enabled) => {
    const next = new URLSearchParams(params);
    next.set('offset', String(to));
    return enabled ? h('a', { href: '/tables?' + next }, label) : h('span', { class: 'muted' }, label);
  };
  return h('div', { class: 'pager' },
    link('← previous', Math.max(0, offset - PAGE), offset > 0),
    link('next →', offset + PAGE, offset + PAGE < total));
}
