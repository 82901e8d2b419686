// Workers: groups with target and live counts, workers with heartbeats and tasks, the queue.
import { api, h, panel, table, cell, count, time, ago, errorText } from './ui.js';

const REFRESH_MS = 5000;

export async function render(main) {
  main.replaceChildren(h('h1', {}, 'Workers'), h('div', { id: 'workers' }));
  await refresh();
  const timer = setInterval(() => refresh().catch(() => {}), REFRESH_MS);
  window.addEventListener('pagehide', () => clearInterval(timer), { once: true });
}

async function refresh() {
  const target = document.getElementById('workers');
  let answer;
  try {
    answer = await api('/api/v1/workers');
  } catch (error) {
    target.replaceChildren(errorText(error));
    return;
  }
  const queue = answer.queue || {};
  target.replaceChildren(
    h('div', { class: 'grid' },
      panel('Queued tasks', h('div', { class: 'figure', id: 'queue-queued' }, count(queue.queued)),
        h('p', { class: 'muted' }, queue.oldest_queued_at ? 'oldest queued ' + ago(queue.oldest_queued_at) : 'none waiting')),
      panel('Leased tasks', h('div', { class: 'figure', id: 'queue-leased' }, count(queue.leased)),
        h('p', { class: 'muted' }, count(queue.slots) + ' task slots in all groups'))),
    panel('Groups', table(
      [{ label: 'group' }, { label: 'kind' }, { label: 'live', num: true }, { label: 'target', num: true }, { label: 'starting', num: true },
        { label: 'Flink job' }, { label: 'last start error' }],
      answer.groups.map((g) => h('tr', { 'data-group': g.name },
        cell(g.name), cell(g.kind), cell(count(g.live), { num: true }), cell(count(g.target), { num: true }),
        cell(count(g.starting), { num: true }), flinkJob(g), h('td', { class: 'wrap' }, g.last_start_error || '–'))),
      { id: 'groups' })),
    panel('Workers', answer.workers.length ? table(
      [{ label: 'worker' }, { label: 'group' }, { label: 'kind' }, { label: 'host', narrow: true }, { label: 'pid', num: true, narrow: true }, { label: 'threads', num: true },
        { label: 'running', num: true }, { label: 'completed', num: true }, { label: 'last heartbeat' }, { label: 'started', narrow: true }],
      answer.workers.map((w) => h('tr', { 'data-worker': w.id },
        cell(w.id), cell(w.group), cell(w.kind), cell(w.host, { narrow: true }), cell(w.pid ?? '–', { num: true, narrow: true }),
        cell(count(w.threads), { num: true }), cell(count(w.running_tasks), { num: true }), cell(count(w.completed_tasks), { num: true }),
        cell(ago(w.last_heartbeat_at)), cell(time(w.started_at), { narrow: true }))),
      { id: 'worker-list' }) : h('p', { class: 'muted' }, 'No worker is registered.')),
  );
}

/** A flink group's job (name, state, id), '–' for other kinds or while none is submitted. */
function flinkJob(group) {
  const job = group.flink_job;
  if (!job) return h('td', { 'data-flink-job': '' }, '–');
  return h('td', { class: 'wrap', 'data-flink-job': job.id },
    job.name + ' ', h('span', { 'data-state': job.state }, job.state), h('div', { class: 'muted' }, h('code', {}, job.id)));
}
