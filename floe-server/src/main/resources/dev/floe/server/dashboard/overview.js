// Overview: tables by state and health band, backlog, workers per group, alerts, events, freshness.
import { api, h, panel, table, cell, bytes, count, duration, time, ago, state, tableLink, unavailable, errorText } from './ui.js';

const REFRESH_MS = 10000;

export async function render(main) {
  main.replaceChildren(h('h1', {}, 'Overview'), h('div', { id: 'overview' }));
  await refresh();
  const timer = setInterval(() => refresh().catch(() => {}), REFRESH_MS);
  window.addEventListener('pagehide', () => clearInterval(timer), { once: true });
}

async function refresh() {
  const target = document.getElementById('overview');
  let overview;
  let freshest;
  try {
    [overview, freshest] = await Promise.all([
      api('/api/v1/overview'),
      api('/api/v1/tables?sort=-freshness_ms&limit=10'),
    ]);
  } catch (error) {
    target.replaceChildren(errorText(error));
    return;
  }
  const total = Object.values(overview.tables_by_state).reduce((a, b) => a + b, 0);
  target.replaceChildren(
    h('div', { class: 'grid' },
      panel('Tables', h('div', { class: 'figure', id: 'tables-total' }, count(total)),
        h('p', { class: 'muted' }, 'kept by this keeper')),
      panel('Backlog', h('div', { class: 'figure', id: 'backlog' }, bytes(overview.backlog_bytes)),
        h('p', { class: 'muted' }, 'bytes the planner would rewrite now')),
      panel('Alerts firing', overview.alerts_firing === null || overview.alerts_firing === undefined
        ? unavailable('Alerts')
        : h('div', { class: 'figure', id: 'alerts-firing' }, h('a', { href: '/alerts' }, count(overview.alerts_firing)))),
      panel('Tables by state', bars(overview.tables_by_state, 'by-state', (name) => state(name), '/tables?state=')),
      panel('Tables by health', bars(overview.tables_by_health, 'by-health', (name) => name, null)),
      panel('Workers (live / target)', workers(overview.groups)),
      h('section', { class: 'panel wide' }, h('h2', {}, 'Sync freshness (now minus the source watermark of the latest sync commit)'),
        freshness(freshest.tables), syncs(overview.syncs)),
      h('section', { class: 'panel wide' }, h('h2', {}, 'Recent events'), events(overview.events)),
    ),
  );
}

function bars(counts, id, label, link) {
  const max = Math.max(1, ...Object.values(counts));
  return h('div', { class: 'bars', id },
    Object.entries(counts).map(([name, n]) =>
      h('div', { class: 'bar', 'data-name': name, 'data-count': n },
        link ? h('a', { href: link + encodeURIComponent(name) }, label(name)) : h('span', {}, label(name)),
        fill(n / max),
        h('span', { class: 'num' }, count(n)))));
}

// CSP allows styles set through the CSSOM, not style attributes
function fill(fraction) {
  const element = h('div', { class: 'fill' });
  element.style.width = Math.round(fraction * 100) + '%';
  return element;
}

function workers(groups) {
  if (!groups.length) return h('p', { class: 'muted' }, 'No worker groups.');
  return table(
    [{ label: 'group' }, { label: 'kind' }, { label: 'live', num: true }, { label: 'target', num: true }],
    groups.map((g) => h('tr', { 'data-group': g.name },
      cell(g.name), cell(g.kind), cell(count(g.live), { num: true }), cell(count(g.target), { num: true }))),
    { id: 'groups' });
}

function freshness(tables) {
  const synced = tables.filter((t) => t.source_watermark_at);
  if (!synced.length) return h('p', { class: 'muted', id: 'freshness' }, 'No table has a sync commit yet.');
  return table(
    [{ label: 'table' }, { label: 'catalog', narrow: true }, { label: 'freshness', num: true }, { label: 'source watermark', narrow: true }],
    synced.map((t) => h('tr', { 'data-table': t.table },
      cell(tableLink(t.table, t.catalog)), cell(t.catalog, { narrow: true }),
      cell(duration(t.freshness_ms), { num: true }), cell(time(t.source_watermark_at), { narrow: true }))),
    { id: 'freshness' });
}

function syncs(list) {
  if (!list || !list.length) return h('p', { class: 'muted' }, 'No sync job reports to this keeper.');
  return table(
    [{ label: 'sync' }, { label: 'state' }, { label: 'lag', num: true }, { label: 'reported' }],
    list.map((s) => h('tr', { 'data-sync': s.name },
      cell(s.name), cell(s.stale ? 'stale' : s.state), cell(duration(s.lag_ms), { num: true }), cell(ago(s.reported_at)))),
    { id: 'syncs' });
}

export function events(list) {
  if (!list.length) return h('p', { class: 'muted' }, 'No events.');
  return table(
    [{ label: 'time' }, { label: 'kind' }, { label: 'table' }, { label: 'message' }],
    list.map((e) => h('tr', {},
      cell(time(e.at)), cell(e.kind), cell(e.table ? tableLink(e.table, e.catalog) : '–'),
      h('td', { class: 'wrap' }, e.message))),
    { id: 'events' });
}
