// Verifications: the scheduled ones, their last results (counts by kind, the differing keys, a
// repair hint) and a "Run now" action.
import { api, h, panel, table, cell, count, time, confirmAction, unavailable, errorText, ApiError } from './ui.js';

const KINDS = [
  ['missing_in_lake', 'missing in the lake'],
  ['extra_in_lake', 'extra in the lake'],
  ['different', 'different'],
];
const POLL_MS = 2000;

export async function render(main) {
  main.replaceChildren(
    h('h1', {}, 'Verifications'),
    h('p', { class: 'muted', id: 'verifications-result', 'aria-live': 'polite' }),
    h('div', { id: 'verifications' }));
  await draw();
}

async function draw() {
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
  const list = panel('Scheduled', table(
    [{ label: 'name' }, { label: 'source table' }, { label: 'target' }, { label: 'daily at' }, { label: 'next run' },
      { label: 'last result' }, { label: 'missing / extra / different', num: true }, { label: '' }],
    answer.verifications.map((v) => h('tr', { 'data-verification': v.name },
      cell(v.name), cell(v.table), cell(v.target), cell(v.at + ' ' + (v.time_zone || '(the source\'s zone, not read yet)')),
      h('td', { class: 'wrap' }, v.next_run_at ? time(v.next_run_at) : '–',
        v.schedule_error ? h('div', { class: 'error', 'data-schedule-error': '' }, v.schedule_error) : null),
      h('td', { class: 'wrap' },
        h('span', { 'data-result': v.running ? 'running' : v.last ? v.last.result : 'none' },
          v.running ? 'running' : v.last ? v.last.result + ' (' + time(v.last.finished_at) + ')' : 'not run yet'),
        v.last && v.last.error ? h('div', { class: 'error', 'data-error': '' }, v.last.error) : null),
      cell(v.last && v.last.counts ? `${count(v.last.counts.missing)} / ${count(v.last.counts.extra)} / ${count(v.last.counts.different)}` : '–', { num: true }),
      cell(runButton(v)))),
    { id: 'verification-list' }));
  // The differing keys of each verification whose newest run found differences.
  const details = await Promise.all(answer.verifications
    .filter((v) => v.last && v.last.result === 'different')
    .map((v) => api('/api/v1/verifications/' + encodeURIComponent(v.name)).catch(() => null)));
  target.replaceChildren(list, ...details.filter(Boolean).map(differences).filter(Boolean));
}

function runButton(verification) {
  return h('button', {
    type: 'button', 'data-action': 'run',
    onclick: async () => {
      if (!(await confirmAction(`Run ${verification.name} now? It compares ${verification.table} in MySQL with `
        + `${verification.target} in the lake, with floe verify's load limits.`))) return;
      const message = document.getElementById('verifications-result');
      try {
        await api('/api/v1/verifications/' + encodeURIComponent(verification.name) + '/run', { method: 'POST' });
        message.textContent = `${verification.name}: started; its result shows here when it finishes.`;
        await draw();
        awaitEnd(verification.name);
      } catch (error) {
        message.textContent = error instanceof ApiError && error.status === 409
          ? `${verification.name} is already running; its result shows here when it finishes.`
          : `Run now failed: ${error.message}`;
        if (error instanceof ApiError && error.status === 409) awaitEnd(verification.name);
      }
    },
  }, 'Run now');
}

/** Draws the page again once the verification's run has ended. */
function awaitEnd(name) {
  const check = async () => {
    if (!document.getElementById('verifications')) return; // another page is shown
    let verification;
    try {
      verification = await api('/api/v1/verifications/' + encodeURIComponent(name));
    } catch (error) {
      setTimeout(check, POLL_MS);
      return;
    }
    if (verification.running) {
      setTimeout(check, POLL_MS);
      return;
    }
    document.getElementById('verifications-result').textContent =
      `${name}: ${verification.last ? verification.last.result : 'finished'}.`;
    await draw();
  };
  setTimeout(check, POLL_MS);
}

/** A verification's newest run's differences: a few keys per kind with the count, and the repair. */
function differences(verification) {
  const run = verification.runs && verification.runs[0];
  if (!run || run.result !== 'different' || !run.keys) return null;
  const kinds = KINDS.filter(([kind]) => run.keys[kind] && run.keys[kind].count > 0).map(([kind, label]) => {
    const found = run.keys[kind];
    const more = found.count - found.keys.length;
    return h('tr', { 'data-kind': kind },
      cell(label), cell(count(found.count), { num: true }),
      h('td', { class: 'wrap' }, h('code', {}, found.keys.join(', ')), more > 0 ? ` and ${count(more)} more` : ''));
  });
  const cutoff = (run.report && run.report.cutoff) || verification.cutoff;
  const source = verification.source.replace(/:[^:@/]*@/, '@'); // the password is never in a command line
  const verify = `./floe verify --source ${source} --table ${verification.table} --target ${verification.target}`
    + ` --time-column ${verification.time_column} --window ${verification.window} --cutoff ${cutoff}`
    + ' --report differences.json';
  const resync = `./floe sync ... --resnapshot ${verification.table}`;
  return h('section', { class: 'panel', 'data-differences': verification.name },
    h('h2', {}, `${verification.name}: differences found ${time(run.finished_at)}`),
    table([{ label: 'kind' }, { label: 'rows', num: true }, { label: 'keys' }], kinds),
    h('div', { class: 'repair' },
      h('p', {}, 'Repair: copy the table again from MySQL with the sync that writes it,'
        + ` restarted with --resnapshot (the other tables resume where they stopped):`),
      h('pre', {}, resync),
      h('p', {}, 'then press Run now. Every differing key, and the differing columns of changed rows,'
        + ` are in the report of (the password from FLOE_SOURCE_PASSWORD):`),
      h('pre', {}, verify)));
}
