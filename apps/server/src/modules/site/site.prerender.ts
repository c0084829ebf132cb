import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { AnswerSource } from '../../lib/public-cache.ts';
import { answeredFrom } from '../../front-door/http.ts';
import { escapeHtml } from './site.index-page.ts';

/** What the web build's dist/ssr/entry-server.js exports (apps/web/src/entry-server.tsx). */
interface Renderer {
  PRERENDERED_PAGES: string[];
  readsOf(page: string): string[];
  render(page: string, answers: Record<string, unknown>): Promise<{ markup: string; title?: string }>;
}

/**
 * A guest's first page drawn on the server by the web app's own components (on a slow
 * phone the page showed nothing until ~90 KB of script had arrived and run). The page carries
 * the API answers it was drawn from, so the app in the browser takes the markup over without
 * asking again; its script is fetched once the page is painted (apps/web/src/boot.ts).
 */
export class Prerender {
  private renderer: Promise<Renderer | null> | undefined;

  constructor(
    private readonly app: FastifyInstance,
    private readonly file: string,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Whether `pathname` is a page the server draws (false without the web build's ssr/). */
  async draws(pathname: string): Promise<boolean> {
    const renderer = await this.load();
    return renderer?.PRERENDERED_PAGES.includes(pathname) ?? false;
  }

  /**
   * `template` (the index page with the site's settings) with `pathname` drawn into it, and the
   * cached answers it was drawn from; or the template as it is when the page cannot be drawn (an
   * API answer missing, a component that failed on the server): the browser then draws it, as it
   * does for every other page.
   */
  async page(template: string, pathname: string): Promise<{ html: string; inputs: AnswerSource[] }> {
    const renderer = await this.load();
    if (!renderer) return { html: template, inputs: [] };
    // Also when drawing fails: the shell is then kept only until one of them changes.
    const inputs: AnswerSource[] = [];
    try {
      const urls = renderer.readsOf(pathname);
      const bodies = await Promise.all(
        urls.map(async (url) => {
          const res = await this.app.inject({ method: 'GET', url });
          if (res.statusCode !== 200) throw new MissingAnswer(`GET ${url} answered ${res.statusCode}`);
          const source = answeredFrom(res.raw.req);
          if (source) inputs.push(source);
          return res.json<unknown>();
        }),
      );
      const answers = Object.fromEntries(urls.map((url, i) => [url, bodies[i]]));
      return { html: composePage(template, pathname, await renderer.render(pathname, answers), answers), inputs };
    } catch (err) {
      // A page the owner has not written yet (/help without its text) is the browser's to show.
      if (err instanceof MissingAnswer) this.log.debug({ page: pathname, reason: err.message }, 'page not drawn on the server');
      else this.log.warn({ err, page: pathname }, 'could not draw the page on the server; the browser draws it');
      return { html: template, inputs };
    }
  }

  private load(): Promise<Renderer | null> {
    this.renderer ??= existsSync(this.file)
      ? (import(pathToFileURL(this.file).href) as Promise<Renderer>).catch((err: unknown) => {
          this.log.error({ err }, `cannot load ${this.file}: pages are drawn in the browser only`);
          return null;
        })
      : Promise.resolve(null);
    return this.renderer;
  }
}

class MissingAnswer extends Error {}

export const prerenderFile = (webDist: string) => path.join(webDist, 'ssr', 'entry-server.js');

/** React puts the hints for what the markup loads (an image's preload) first: they belong in the head. */
const LEADING_HINTS = /^(?:<link [^>]*>)+/;
const APP_SCRIPT = /\s*<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js"><\/script>/;
const MODULE_PRELOAD = /\s*<link rel="modulepreload"[^>]*>/g;
const PAGE_FILES = /data-page-files='([^']*)'/;

/**
 * The built index page with the drawn page in #root and the answers in #kubik-first; the app's
 * script and its preloads go (boot.ts fetches them after the first paint), and the page's own
 * styles come in as stylesheets, so it is drawn right from the first paint.
 */
export function composePage(
  template: string,
  pathname: string,
  { markup, title }: { markup: string; title?: string },
  answers: Record<string, unknown>,
): string {
  const start = template.indexOf('<div id="root">');
  const bodyEnd = template.indexOf('</body>');
  const end = template.lastIndexOf('</div>', bodyEnd);
  if (start < 0 || end < start) throw new Error('index.html has no <div id="root"> to draw into');
  const hints = LEADING_HINTS.exec(markup)?.[0] ?? '';
  const pageFiles = (JSON.parse(PAGE_FILES.exec(template)?.[1] ?? '{}') as Record<string, string[]>)[pathname] ?? [];
  const styles = pageFiles
    .filter((f) => f.endsWith('.css'))
    .map((f) => `<link rel="stylesheet" crossorigin href="${f}">`)
    .join('');
  // Inside <script> only "</script" could end it early: no "<" is left in the JSON.
  const data = JSON.stringify(answers).replace(/</g, '\\u003c');
  let head = template.slice(0, start);
  if (title) head = head.replace(/<title>[^<]*<\/title>/, `<title>${escapeHtml(title)}</title>`);
  head = head.replace(APP_SCRIPT, '').replace(MODULE_PRELOAD, '').replace('</head>', `${styles}${hints}</head>`);
  return (
    `${head}<div id="root">${markup.slice(hints.length)}</div>` +
    `<script type="application/json" id="kubik-first">${data}</script>` +
    template.slice(end + '</div>'.length)
  );
}
