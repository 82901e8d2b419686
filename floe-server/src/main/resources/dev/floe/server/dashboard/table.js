// Table detail: figures, actions, health over time, file sizes, partitions, plan, runs, snapshots,
// verifications and events of one table.
import { api, h, panel, table, cell, bytes, count, duration, time, state, health, confirmAction, unavailable, errorText, ApiError } from './ui.js';
import { healthChart, sizeHistogram } from './charts.js';
import { events } from './overview.js';

export async function render(main, params) {
  const name = params.get('table');
  const catalog = params.get('catalog');
  const suffix = catalog ? '?catalog=' + encodeURIComponent(catalog) : '';
  const base = '/api/v1/tables/' + encodeURIComponent(name);
  let detail;
  try {
    detail = await api(base + suffix);
  } catch (error) {
    main.replaceChildren(h('h1', {}, name), errorText(error));
    return;
  }
  const withLimit = (path, limit) => base + path + (suffix ? suffix + '&' : '?') + 'limit=' + limit;
  const [history, files, snapshots, eventList] = await Promise.all([
    api(base + '/history' + suffix).catch((e) => e),
    api(base + '/files' + suffix).catch((e) => e),
    api(withLimit('/snapshots', 30)).catch((e) => e),
    api('/api/v1/events?table=' + encodeURIComponent(name) + '&catalog=' + encodeURIComponent(detail.catalog) + '&limit=20').catch((e) => e),
  ]);
  main.replaceChildren(
    h('h1', { id: 'table-name' }, detail.table, ' ', h('span', { class: 'muted' }, 'in catalog ' + detail.catalog)),
    h('div', { class: 'grid' },
      panel('State', h('div', { class: 'figure', id: 'table-state' }, state(detail.state)),
        detail.last_error ? h('p', { class: 'error', id: 'last-error' }, detail.last_error) : null,
        detail.retry_at ? h('p', { class: 'muted' }, 'next try ' + time(detail.retry_at)) : null),
      panel('Health', h('div', { class: 'figure', id: 'table-health' }, health(detail.health)),
        h('p', { class: 'muted' }, `${count(detail.data_files)} data files, ${count(detail.small_files)} small, ${count(detail.delete_files)} delete files`)),
      panel('Backlog', h('div', { class: 'figure' }, bytes(detail.backlog_bytes)),
        h('p', { class: 'muted' }, 'last optimized ' + time(detail.last_optimized_at))),
      panel('Actions', actions(detail, base, suffix)),
    ),
    h('div', { class: 'grid' },
      panel('Health over time', chartOrNote(history, 'health-chart', (c) =>
        history.samples.length ? (healthChart(c, history.samples), null) : 'No evaluations recorded yet.')),
      panel('Data files by size', chartOrNote(files, 'size-chart', (c) =>
        files.histogram.length ? (sizeHistogram(c, files.histogram, files.target_file_size), null) : 'The table has no data files.')),
    ),
    panel('Partitions, worst first', partitions(detail.partitions)),
    panel('The plan the planner would make now', plan(detail.plan)),
    panel('Optimize and maintenance runs', runs(detail.runs)),
    panel('Snapshots', snapshots instanceof Error ? errorText(snapshots) : timeline(snapshots.snapshots)),
    panel('Verifications', h('div', { id: 'table-verifications' })),
    panel('Events', eventList instanceof Error ? errorText(eventList) : events(eventList.events)),
  );
  verifications(detail).catch(() => {});
}

function chartOrNote(answer, id, draw) {
  const container = h('div', { class: 'chart', id });
  if (answer instanceof Error) return errorText(answer);
  // drawn once the container is in the page (uPlot measures it)
  requestAnimationFrame(() => {
    const note = draw(container);
    if (note) container.replaceChildren(h('p', { class: 'muted' }, note));
  });
  return container;
}

function actions(detail, base, suffix) {
  const message = h('p', { class: 'muted', id: 'action-result' });
  const button = (action, label, text) =>
    h('button', {
      type: 'button', id: 'action-' + action,
      onclick: async () => {
        if (!(await confirmAction(text))) return;
        try {
          const updated = await api(base + '/' + action + suffix, { method: 'POST' });
          message.textContent = label + ': done, the table is now ' + updated.state + '.';
          document.getElementById('table-state').replaceChildren(state(updated.state));
        } catch (error) {
          message.textContent = label + ' failed: ' + error.message;
        }
      },
    }, label);
  const paused = detail.state === 'paused';
  const quarantined = detail.state === 'quarantined';
  return h('div', {},
    h('div', { class: 'actions' },
      button('optimize', 'Optimize now', `Optimize ${detail.table} now, its few small files and deletes included?`),
      paused || quarantined ? null : button('pause', 'Pause', `Pause ${detail.table}? No new runs start until it is resumed (a running one finishes).`),
      button('resume', quarantined ? 'Release quarantine' : 'Resume',
        quarantined ? `Release ${detail.table} from quarantine? Its failure count is cleared and it is planned again.` :
          `Resume ${detail.table}? It is evaluated again at once.`)),
    message);
}

function partitions(list) {
  if (!list.length) return h('p', { class: 'muted' }, 'Not evaluated yet.');
  return table(
    [{ label: 'partition' }, { label: 'health', num: true }, { label: 'data files', num: true }, { label: 'small files', num: true }, { label: 'delete files', num: true }, { label: 'data', num: true }],
    list.slice(0, 50).map((p) => h('tr', {},
      cell(p.partition), cell(health(p.health), { num: true }), cell(count(p.data_files), { num: true }),
      cell(count(p.small_files), { num: true }), cell(count(p.delete_files), { num: true }), cell(bytes(p.data_bytes), { num: true }))),
    { id: 'partitions' });
}

function plan(tasks) {
  if (!tasks.length) return h('p', { class: 'muted', id: 'plan' }, 'Nothing to do now.');
  return table(
    [{ label: 'partition' }, { label: 'kind' }, { label: 'files in', num: true }, { label: 'bytes in', num: true }, { label: 'files out (expected)', num: true }, { label: 'reason' }],
    tasks.map((t) => h('tr', {},
      cell(t.partition), cell(t.kind), cell(count(t.files_in), { num: true }), cell(bytes(t.bytes_in), { num: true }),
      cell(count(t.expected_files_out), { num: true }), h('td', { class: 'wrap' }, t.reason))),
    { id: 'plan' });
}

function runs(list) {
  if (!list.length) return h('p', { class: 'muted' }, 'No runs yet.');
  return table(
    [{ label: 'started' }, { label: 'kind' }, { label: 'result' }, { label: 'duration', num: true }, { label: 'files in → out', num: true }, { label: 'bytes in → out', num: true }, { label: 'detail' }],
    list.map((r) => h('tr', {},
      cell(time(r.started_at)), cell(r.kind), cell(r.result), cell(duration(r.duration_ms), { num: true }),
      cell(count(r.files_in) + ' → ' + count(r.files_out), { num: true }),
      cell(bytes(r.bytes_in) + ' → ' + bytes(r.bytes_out), { num: true }),
      h('td', { class: 'wrap' }, r.detail))),
    { id: 'runs' });
}

function timeline(list) {
  if (!list.length) return h('p', { class: 'muted' }, 'The table has no snapshots.');
  return table(
    [{ label: 'committed' }, { label: 'operation' }, { label: 'writer' }, { label: 'data files +/−', num: true }, { label: 'delete files +/−', num: true }, { label: 'records +/−', num: true }, { label: 'snapshot', narrow: true }],
    list.map((s) => h('tr', { 'data-writer': s.writer },
      cell(time(s.committed_at)), cell(s.operation), cell(s.writer),
      cell('+' + count(s.added_data_files) + ' / −' + count(s.removed_data_files), { num: true }),
      cell('+' + count(s.added_delete_files) + ' / −' + count(s.removed_delete_files), { num: true }),
      cell('+' + count(s.added_records) + ' / −' + count(s.removed_records), { num: true }),
      cell(String(s.snapshot_id), { narrow: true }))),
    { id: 'snapshots' });
}

async function verifications(detail) {
  const target = document.getElementById('table-verifications');
  try {
    const answer = await api('/api/v1/verifications');
    const mine = answer.verifications.filter((v) => v.target === detail.table);
    if (!mine.length) {
      target.replaceChildren(h('p', { class: 'muted' }, 'No scheduled verification targets this table.'));
      return;
    }
    target.replaceChildren(table(
      [{ label: 'verification' }, { label: 'last result' }, { label: 'finished' }, { label: 'missing / extra / different', num: true }],
      mine.map((v) => h('tr', {},
        cell(h('a', { href: '/verifications' }, v.name)),
        cell(v.last ? v.last.result : 'not run yet'),
        cell(v.last ? time(v.last.finished_at) : '–'),
        cell(v.last && v.last.counts ? `${count(v.last.counts.missing)} / ${count(v.last.counts.extra)} / ${count(v.last.counts.different)}` : '–', { num: true })))));
  } catch (error) {
    target.replaceChildren(error instanceof ApiError && error.status === 404 ? unavailable('Verifications') : errorText(error));
  }
}
