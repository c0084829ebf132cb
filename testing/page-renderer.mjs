/**
 * A stand-in for the web build's page renderer (apps/web/dist/ssr/entry-server.js, built from
 * apps/web/src/entry-server.tsx) for the server's tests: the same exports, and like the real one
 * it draws only from the answers it is handed, names the title the app would set, and rejects
 * when a component fails (here: a tier titled «boom»). React's image preload hints come first in
 * the real markup; this one starts with one too.
 */
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export const PRERENDERED_PAGES = ['/', '/donate'];

export const readsOf = (page) => ['/api/site/settings', '/api/pages', ...(page === '/donate' ? ['/api/donate/fully'] : [])];

export async function render(page, answers) {
  const site = answers['/api/site/settings'];
  if (!site) throw new Error('no site settings to draw with');
  const tiers = answers['/api/donate/fully'] ?? [];
  if (tiers.some((t) => t.title === 'boom')) throw new Error('a component failed');
  const list = tiers.map((t) => `<li class="tier">${esc(t.title)}</li>`).join('');
  return {
    markup: `<link rel="preload" as="image" href="/favicon.svg"/><header><span>${esc(site.name)}</span></header><main>${page === '/donate' ? `<h1>Донат</h1><ul>${list}</ul>` : '<h1>Главная</h1>'}</main>`,
    ...(page === '/donate' ? { title: `Донат — ${site.name}` } : {}),
  };
}
