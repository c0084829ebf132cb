import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import { sendCached } from '../../front-door/http.ts';
import type { ErrorBody } from '../../lib/errors.ts';
import { ensurePrivateDir } from '../../base/private-files.ts';
import { signedInBrowser } from '../users/session-tokens.ts';
import { indexPage } from './site.index-page.ts';
import { Prerender, prerenderFile } from './site.prerender.ts';
import { SiteSettingsDoc } from './site.settings.ts';

/**
 * The web build's files as URL paths (`/assets/index-d4.js`), without the page renderer (`ssr/`,
 * the server's, not a download) and the compressed copies the static plugin picks by itself.
 */
function webFiles(root: string): Set<string> {
  const files = new Set<string>();
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const name = `${prefix}/${entry.name}`;
      if (entry.isDirectory()) {
        if (name !== '/ssr') walk(path.join(dir, entry.name), name);
      } else if (entry.isFile() && !/\.(br|gz)$/.test(name)) files.add(name);
    }
  };
  walk(root, '');
  return files;
}

/**
 * Serves the built single-page app: its files, the downloads the owner publishes, and index.html
 * (drawn for guests) for every other path that is not the API's. `setupNeeded`: a fresh site
 * leads every page to first-run setup.
 */
export function registerWebApp(app: FastifyInstance, config: Readonly<Config>, setupNeeded: () => Promise<boolean>): void {
  // Launcher builds and other files the owner publishes: DATA_DIR/downloads → /downloads/.
  const downloads = path.join(config.dataDir, 'downloads');
  ensurePrivateDir(downloads);
  void app.register(fastifyStatic, { root: downloads, prefix: '/downloads/', decorateReply: false, index: false });

  const indexFile = path.join(config.webDist, 'index.html');
  const hasWeb = existsSync(indexFile);
  if (hasWeb) {
    // The build's files, listed once at start (a new build comes with a restart). Any other path
    // (a page of the app, a scanner's guess, /api/…) goes to the 404 handler without touching the
    // disk: the static plugin's own catch-all tries .br, .gz and the plain name, each with a
    // directory read to check the spelling, for every such request. A listed name is spelled
    // exactly, so the plugin's check is not needed for it.
    const files = webFiles(config.webDist);
    void app.register(fastifyStatic, {
      root: config.webDist,
      serve: false,
      index: false,
      // The build writes .br and .gz beside every text asset (apps/web/vite.config.ts).
      preCompressed: true,
      setHeaders(res, filePath) {
        res.header('cache-control', filePath.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
    app.get('/*', { config: { access: 'public' }, schema: { hide: true } }, (request, reply) => {
      const pathname = request.url.split('?', 1)[0]!;
      return files.has(pathname) ? reply.sendFile(pathname) : reply.callNotFound();
    });
  }
  // The static plugin would treat '/' as a directory: the home page is the app's index.
  const indexHtml = async () => indexPage(indexFile, await app.ctx.settings.get(SiteSettingsDoc));
  const prerender = new Prerender(app, prerenderFile(config.webDist), app.log);
  const sendIndex = async (request: FastifyRequest, reply: FastifyReply, pathname: string) => {
    const cache = app.ctx.publicCache;
    // A guest's first pages come drawn (modules/site/site.prerender.ts), drawn again when an
    // answer they show changes; a signed-in visitor's header is their own: they get the shell.
    if (!signedInBrowser(request.headers) && (await prerender.draws(pathname))) {
      const key = `web.page:${pathname}`;
      const page = await cache.get(
        key,
        async () => {
          const { html, inputs } = await prerender.page((await indexHtml()).toString(), pathname);
          cache.dependOn(key, inputs);
          return Buffer.from(html);
        },
        'text/html; charset=utf-8',
        // Prices on sale and the footer's year follow the clock: drawn again at least every minute.
        { guestsOnly: true, maxAgeMs: 60_000 },
      );
      return sendCached(request, reply, page);
    }
    return sendCached(request, reply, await cache.get('web.index', indexHtml, 'text/html; charset=utf-8'));
  };
  const sendPage = async (request: FastifyRequest, reply: FastifyReply, pathname: string) =>
    pathname !== '/setup' && (await setupNeeded()) ? reply.redirect('/setup') : sendIndex(request, reply, pathname);
  if (hasWeb) app.get('/', { config: { access: 'public' }, schema: { hide: true } }, (request, reply) => sendPage(request, reply, '/'));
  app.setNotFoundHandler((request, reply) => {
    const url = request.url;
    if (url.startsWith('/api/') || url === '/api' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      return reply.code(404).send({ error: 'Не найдено', code: 'not_found' } satisfies ErrorBody);
    }
    // A missing file (a script, an image, a download) is a 404, not the app's index page.
    const pathname = url.split('?')[0] ?? '';
    if (pathname.startsWith('/downloads/') || /\.[a-z0-9]{1,8}$/i.test(pathname)) {
      return reply.code(404).type('text/plain; charset=utf-8').send('Файл не найден');
    }
    if (!hasWeb) return reply.code(503).type('text/plain; charset=utf-8').send('Веб-приложение не собрано: выполните npm run build');
    return sendPage(request, reply, pathname);
  });
}
