// Shared helpers of the dashboard's pages: the API client, DOM building (never innerHTML with
// data), and formatting of bytes, durations and times (in the browser's time zone).

/** Calls the keeper's API; a 401 sends the browser to the login page. */
export async function api(path, options = {}) {
  const init = { credentials: 'same-origin', ...options };
  init.headers = { Accept: 'application/json', ...(options.headers || {}) };
  if (init.method && init.method !== 'GET') {
    init.headers['X-Floe-Request'] = '1'; // the keeper refuses cookie requests without it (CSRF)
  }
  const response = await fetch(path, init);
  if (response.status === 401) {
    location.href = '/login?next=' + encodeURIComponent(location.pathname + location.search);
    throw new ApiError(401, 'not logged in');
  }
  const body = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) {
    throw new ApiError(response.status, (body && body.error) || 'HTTP ' + response.status);
  }
  return body;
}

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** h('td', {class: 'num'}, 'text', child): an element with attributes and children. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.substring(2), value);
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

export function panel(title, ...children) {
  return h('section', { class: 'panel' }, h('h2', {}, title), ...children);
}

/** A table with a header row; each column {label, num, narrow}. */
export function table(columns, rows, attributes = {}) {
  return h(
    'table',
    attributes,
    h('thead', {}, h('tr', {}, columns.map((c) => h('th', { class: cls(c) }, c.label)))),
    h('tbody', {}, rows),
  );
}

function cls(column) {
  return [column.num ? 'num' : '', column.narrow ? 'hide-narrow' : ''].join(' ').trim() || null;
}

export function cell(value, column = {}) {
  return h('td', { class: cls(column) }, value);
}

export function unavailable(what) {
  return h('p', { class: 'unavailable' }, what + ' are not available in this version of the keeper.');
}

export function errorText(error) {
  return h('p', { class: 'error' }, 'Could not load: ' + error.message);
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

export function bytes(value) {
  if (value === null || value === undefined) return '–';
  let unit = 0;
  let amount = Number(value);
  while (Math.abs(amount) >= 1024 && unit < BYTE_UNITS.length - 1) {
    amount /= 1024;
    unit++;
  }
  return (unit === 0 ? amount : amount.toFixed(amount < 10 ? 1 : 0)) + ' ' + BYTE_UNITS[unit];
}

export function count(value) {
  return value === null || value === undefined ? '–' : Number(value).toLocaleString();
}

/** 93000 -> "1 min 33 s". */
export function duration(ms) {
  if (ms === null || ms === undefined) return '–';
  const negative = ms < 0;
  let seconds = Math.round(Math.abs(ms) / 1000);
  const parts = [];
  for (const [unit, size] of [['d', 86400], ['h', 3600], ['min', 60]]) {
    if (seconds >= size) {
      parts.push(Math.floor(seconds / size) + ' ' + unit);
      seconds %= size;
    }
    if (parts.length === 2) break;
  }
  if (parts.length < 2 && (seconds > 0 || parts.length === 0)) parts.push(seconds + ' s');
  return (negative ? '-' : '') + parts.join(' ');
}

const TIME = new Intl.DateTimeFormat(undefined, {
  year: 'numeric', month: 'short', day: 'numeric',
  hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'short',
});

/** An ISO instant in the browser's time zone, with the zone shown. */
export function time(iso) {
  return iso ? TIME.format(new Date(iso)) : '–';
}

/** How long ago an ISO instant was. */
export function ago(iso) {
  return iso ? duration(Date.now() - new Date(iso).getTime()) + ' ago' : '–';
}

export function zoneName() {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

export function state(name) {
  return h('span', { class: 'state state-' + name, 'data-state': name }, name);
}

export function health(value) {
  const band = value >= 80 ? 'good' : value >= 60 ? 'fair' : 'bad';
  return h('span', { class: 'health-' + band, 'data-health': value }, String(value));
}

/** The page URL of a table. */
export function tableLink(name, catalog) {
  return h('a', { href: '/tables/' + encodeURIComponent(name) + '?catalog=' + encodeURIComponent(catalog) }, name);
}

/** Asks in the page's dialog; resolves true when confirmed. */
export function confirmAction(text) {
  const dialog = document.getElementById('confirm');
  document.getElementById('confirm-text').textContent = text;
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
    dialog.showModal();
  });
}
