// Alerts: firing and resolved, with rule, subject, since when and notifications sent.
import { api, h, panel, table, cell, count, time, unavailable, errorText, ApiError } from './ui.js';

export async function render(main) {
  main.replaceChildren(h('h1', {}, 'Alerts'), h('div', { id: 'alerts' }));
  const target = document.getElementById('alerts');
  let firing;
  let resolved;
  try {
    [firing, resolved] = await Promise.all([
      api('/api/v1/alerts?state=firing&limit=200'),
      api('/api/v1/alerts?state=resolved&limit=50'),
    ]);
  } catch (error) {
    target.replaceChildren(error instanceof ApiError && error.status === 404 ? unavailable('Alerts') : errorText(error));
    return;
  }
  target.replaceChildren(
    panel('Firing', list(firing.alerts, 'alerts-firing', 'No alert is firing.')),
    panel('Resolved', list(resolved.alerts, 'alerts-resolved', 'No resolved alerts kept.')));
}

function list(alerts, id, empty) {
  if (!alerts.length) return h('p', { class: 'muted', id }, empty);
  return table(
    [{ label: 'rule' }, { label: 'subject' }, { label: 'message' }, { label: 'since' }, { label: 'resolved' },
      { label: 'notifications', num: true }, { label: 'last notified', narrow: true }],
    alerts.map((a) => h('tr', { 'data-alert': a.id, 'data-rule': a.rule },
      cell(a.rule), cell(a.link ? h('a', { href: a.link }, a.subject) : a.subject),
      h('td', { class: 'wrap' }, a.message + (a.silenced ? ' (silenced)' : '')),
      cell(time(a.fired_at)), cell(time(a.resolved_at)), cell(count(a.deliveries), { num: true }),
      cell(time(a.last_notified_at), { narrow: true }))),
    { id });
}
