// Verifications: the scheduled ones and their last results.
import { api, h, panel, table, cell, count, time, unavailable, errorText, ApiError } from './ui.js';

export async function render(main) {
  main.replaceChildren(h('h1', {}, 'Verifications'), h('div', { id: 'verifications' }));
  const target = document.getElementById('verifications');
  let answer;
  try {
    answer = await api('/api/v1/verifications');
  } catch (error) {
    target.replaceChildren(error instanceof ApiError && error.status === 404 ? unavailable('Verifications') : errorText(error));
    return;
  }
  if (!answer.verifications.length) {
    target.replaceChildren(h('p', { class: 'muted' }, 'No verification is scheduled (keeper.verifications).'));
    return;
  }
  target.replaceChildren(panel('Scheduled', table(
    [{ label: 'name' }, { label: 'source table' }, { label: 'target' }, { label: 'daily at' }, { label: 'next run' },
      { label: 'last result' }, { label: 'missing / extra / different', num: true }, { label: 'error' }],
    answer.verifications.map((v) => h('tr', { 'data-verification': v.name },
      cell(v.name), cell(v.table), cell(v.target), cell(v.at + ' ' + (v.time_zone || '')), cell(time(v.next_run_at)),
      cell(v.running ? 'running' : v.last ? v.last.result + ' (' + time(v.last.finished_at) + ')' : 'not run yet'),
      cell(v.last && v.last.counts ? `${count(v.last.counts.missing)} / ${count(v.last.counts.extra)} / ${count(v.last.counts.different)}` : '–', { num: true }),
      h('td', { class: 'wrap' }, (v.last && v.last.error) || '–'))),
    { id: 'verification-list' })));
}
