// Alerts: firing and resolved, with rule, subject, since when and notifications sent (each
// delivery attempt on demand); silences (add, end); channels (test-send).
import { api, h, panel, table, cell, count, time, confirmAction, unavailable, errorText, ApiError } from './ui.js';

const RULES = ['table-unhealthy', 'table-quarantined', 'capacity-below-target', 'task-age', 'sync-stalled',
  'sync-lag', 'verification-different', 'table-rewound', 'catalog-unreachable'];

export async function render(main) {
  main.replaceChildren(h('h1', {}, 'Alerts'), h('div', { id: 'alerts' }));
  await refresh();
}

async function refresh() {
  const target = document.getElementById('alerts');
  let firing;
  let resolved;
  let silences;
  let channels;
  try {
    [firing, resolved, silences, channels] = await Promise.all([
      api('/api/v1/alerts?state=firing&limit=200'),
      api('/api/v1/alerts?state=resolved&limit=50'),
      api('/api/v1/silences'),
      api('/api/v1/channels'),
    ]);
  } catch (error) {
    target.replaceChildren(error instanceof ApiError && error.status === 404 ? unavailable('Alerts') : errorText(error));
    return;
  }
  target.replaceChildren(
    panel('Firing', list(firing.alerts, 'alerts-firing', 'No alert is firing.', true)),
    panel('Resolved', list(resolved.alerts, 'alerts-resolved', 'No resolved alert is kept.', false)),
    panel('Silences (notifications held; alerts still fire and resolve)', silenceList(silences.silences), silenceForm()),
    panel('Channels', channelList(channels.channels)),
    h('p', { class: 'muted', id: 'alerts-result' }));
}

function list(alerts, id, empty, firing) {
  if (!alerts.length) return h('p', { class: 'muted', id }, empty);
  return table(
    [{ label: 'rule' }, { label: 'subject' }, { label: 'message' }, { label: 'fired' }, { label: firing ? 'acknowledged' : 'resolved' },
      { label: 'notifications', num: true }, { label: 'last notified', narrow: true }, { label: '' }],
    alerts.map((a) => h('tr', { 'data-alert': a.id, 'data-rule': a.rule, 'data-subject': a.subject },
      cell(a.rule), cell(a.link ? h('a', { href: a.link }, a.subject) : a.subject),
      h('td', { class: 'wrap' }, a.message + (a.silenced ? ' (silenced)' : '')),
      cell(time(a.fired_at)), cell(time(firing ? a.acknowledged_at : a.resolved_at)),
      cell(h('button', { type: 'button', class: 'link-dark', onclick: (event) => deliveries(a, event.target) }, count(a.deliveries)), { num: true }),
      cell(time(a.last_notified_at), { narrow: true }),
      cell(firing && !a.acknowledged_at ? h('button', {
        type: 'button', 'data-action': 'acknowledge',
        onclick: async () => {
          if (!(await confirmAction(`Acknowledge ${a.rule} for ${a.subject}?`))) return;
          await act(() => api('/api/v1/alerts/' + a.id + '/acknowledge', { method: 'POST' }), 'Acknowledged.');
        },
      }, 'Acknowledge') : ''))),
    { id });
}

/** Shows every delivery attempt of an alert under its row. */
async function deliveries(alert, button) {
  const row = button.closest('tr');
  if (row.nextElementSibling && row.nextElementSibling.dataset.deliveriesOf === String(alert.id)) {
    row.nextElementSibling.remove();
    return;
  }
  const detail = await api('/api/v1/alerts/' + alert.id);
  const content = detail.deliveries.length
    ? table(
      [{ label: 'channel' }, { label: 'attempt', num: true }, { label: 'at' }, { label: 'status' }, { label: 'HTTP', num: true }, { label: 'error' }],
      detail.deliveries.map((d) => h('tr', {},
        cell(d.channel), cell(count(d.attempt), { num: true }), cell(time(d.at)), cell(d.status),
        cell(d.http_status ?? '–', { num: true }), h('td', { class: 'wrap' }, d.error || '–'))))
    : h('p', { class: 'muted' }, 'No notification was sent (no channel, or silenced).');
  row.after(h('tr', { 'data-deliveries-of': alert.id }, h('td', { colspan: 8 }, content)));
}

function silenceList(silences) {
  if (!silences.length) return h('p', { class: 'muted', id: 'silences' }, 'No silence is in force.');
  return table(
    [{ label: 'rule' }, { label: 'subject' }, { label: 'until' }, { label: 'reason' }, { label: '' }],
    silences.map((s) => h('tr', { 'data-silence': s.id },
      cell(s.rule), cell(s.subject), cell(time(s.until)), h('td', { class: 'wrap' }, s.reason || '–'),
      cell(h('button', {
        type: 'button', 'data-action': 'end-silence',
        onclick: async () => {
          if (!(await confirmAction(`End the silence of ${s.rule} for ${s.subject}?`))) return;
          await act(() => api('/api/v1/silences/' + s.id, { method: 'DELETE' }), 'Silence ended.');
        },
      }, 'End')))),
    { id: 'silences' });
}

function silenceForm() {
  const form = h('form', { class: 'filters', id: 'silence-form' },
    h('label', {}, 'rule', h('select', { name: 'rule' }, RULES.map((r) => h('option', { value: r }, r)))),
    h('label', {}, 'subject (* for all)', h('input', { name: 'subject', required: true, placeholder: 'floe/shop.orders' })),
    h('label', {}, 'for', h('input', { name: 'for', required: true, value: '2h', size: 6 })),
    h('label', {}, 'reason', h('input', { name: 'reason', placeholder: 'maintenance window' })),
    h('button', { type: 'submit', class: 'primary' }, 'Silence'));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = Object.fromEntries(new FormData(form).entries());
    await act(() => api('/api/v1/silences', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
    }), 'Silenced.');
  });
  return form;
}

function channelList(channels) {
  if (!channels.length) return h('p', { class: 'muted', id: 'channels' }, 'No channel is configured (keeper.alerts.channels).');
  return table(
    [{ label: 'channel' }, { label: 'type' }, { label: 'target' }, { label: 'last delivery' }, { label: 'last error' }, { label: '' }],
    channels.map((c) => h('tr', { 'data-channel': c.name },
      cell(c.name), cell(c.type), cell(c.target), cell(time(c.last_delivery_at)), h('td', { class: 'wrap' }, c.last_error || '–'),
      cell(h('button', {
        type: 'button', 'data-action': 'test',
        onclick: async () => {
          if (!(await confirmAction(`Send a test message to ${c.name}?`))) return;
          await act(async () => {
            const attempt = await api('/api/v1/channels/' + encodeURIComponent(c.name) + '/test', { method: 'POST' });
            return 'Test to ' + c.name + ': ' + attempt.status + (attempt.error ? ' (' + attempt.error + ')' : '');
          });
        },
      }, 'Send test')))),
    { id: 'channels' });
}

/** Runs an action, redraws the page, and says how it went. */
async function act(action, done) {
  let message;
  try {
    const answer = await action();
    message = done || answer;
  } catch (error) {
    message = 'Failed: ' + error.message;
  }
  await refresh();
  document.getElementById('alerts-result').textContent = message;
}
