// The dashboard's page shell: shows the page the path names (/, /tables, /tables/NS.NAME,
// /workers, /alerts, /verifications). Each page is a module with render(main, params).
import { h, zoneName } from './ui.js';

const PAGES = [
  [/^\/$/, 'overview', './overview.js'],
  [/^\/tables$/, 'tables', './tables.js'],
  [/^\/tables\/(.+)$/, 'tables', './table.js'],
  [/^\/workers$/, 'workers', './workers.js'],
  [/^\/alerts$/, 'alerts', './alerts.js'],
  [/^\/verifications$/, 'verifications', './verifications.js'],
];

async function show() {
  const main = document.getElementById('main');
  document.getElementById('zone').textContent = 'Times in ' + zoneName();
  document.getElementById('logout').addEventListener('click', async () => {
    await fetch('/logout', { method: 'POST', headers: { 'X-Floe-Request': '1' }, credentials: 'same-origin' });
    location.href = '/login';
  });
  for (const [pattern, nav, module] of PAGES) {
    const match = location.pathname.match(pattern);
    if (!match) continue;
    for (const link of document.querySelectorAll('#nav a')) {
      link.classList.toggle('active', link.dataset.page === nav);
    }
    const page = await import(module);
    const params = new URLSearchParams(location.search);
    if (match[1]) params.set('table', decodeURIComponent(match[1]));
    await page.render(main, params);
    document.body.dataset.ready = 'true';
    return;
  }
  main.replaceChildren(h('p', { class: 'error' }, 'No such page: ' + location.pathname));
}

show().catch((error) => {
  document.getElementById('main').replaceChildren(h('p', { class: 'error' }, 'The page failed: ' + error.message));
  document.body.dataset.ready = 'true';
});

