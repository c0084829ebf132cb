import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { linkIn, SmtpCatcher } from '../../testing/smtp-catcher.ts';
import { freePort } from '../../testing/free-port.ts';
import { SERVE_ENV, serveArgs } from '../../testing/serve-args.ts';

export { linkIn };

const ROOT = path.resolve(import.meta.dirname, '../..');
const SERVE_ARGS = serveArgs();
const CHROMIUM = process.env.CHROME_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Site {
  url: string;
  dataDir: string;
  smtp: SmtpCatcher;
  env: NodeJS.ProcessEnv;
  browser: Browser;
  /** A fresh browser context (its own cookies) with a page on it. */
  newPage(viewport?: { width: number; height: number }): Promise<Page>;
  /** Runs `npm run admin:create` against this site's database. */
  createAdmin(username: string, email: string, password: string): void;
  stop(): Promise<void>;
}

/**
 * Starts the built site as `npm start` would run it, on a free port with a fresh data dir. A site
 * without an administrator leads every page to first-run setup (/setup), so unless `fresh` is
 * asked for, an administrator «Founder» is made first (admin:create), as an installed site has.
 */
export async function startSite(extraEnv: Record<string, string> = {}, options: { fresh?: boolean } = {}): Promise<Site> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kubik-e2e-'));
  const smtp = await new SmtpCatcher().start();
  const { child, url, env } = await spawnSite({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    SMTP_URL: smtp.url,
    RATE_LIMITS: 'off',
    LOG_LEVEL: 'warn',
    ...(process.env.WEB_DIST ? { WEB_DIST: process.env.WEB_DIST } : {}),
    ...extraEnv,
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const contexts: BrowserContext[] = [];
  const site: Site = {
    url,
    dataDir,
    smtp,
    env,
    browser,
    async newPage(viewport = { width: 1280, height: 800 }) {
      const context = await browser.newContext({ baseURL: url, viewport, locale: 'ru-RU' });
      contexts.push(context);
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      waitForTheApp(page);
      // A failed API call is often why a step times out later: say it where the run's log shows it.
      page.on('response', (res) => {
        if (res.status() >= 500 && new URL(res.url()).pathname.startsWith('/api/'))
          console.error(`[e2e] ${res.request().method()} ${res.url()} → ${res.status()}`);
      });
      page.on('requestfailed', (req) => {
        // Aborted ones are a page navigating away, not a failure.
        if (new URL(req.url()).pathname.startsWith('/api/') && req.failure()?.errorText !== 'net::ERR_ABORTED')
          console.error(`[e2e] ${req.method()} ${req.url()} failed: ${req.failure()?.errorText}`);
      });
      return page;
    },
    createAdmin(username, email, password) {
      const res = spawnSync(
        'npm',
        ['run', '--silent', 'admin:create', '--', '--username', username, '--email', email, '--password', password],
        { cwd: ROOT, env, encoding: 'utf8' },
      );
      if (res.status !== 0) throw new Error(`admin:create failed: ${res.stderr}${res.stdout}`);
    },
    async stop() {
      await browser.close().catch(() => {});
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
      await smtp.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  if (!options.fresh) site.createAdmin('Founder', 'founder@example.com', 'founder-password-42');
  return site;
}

/**
 * Starts the site's process (as the production units run it: the built bundle under plain node
 * with the serve script's flags and the units' environment; build-site.ts built it) on a port
 * that was free a moment before, and waits until it answers. The site must know its address
 * (PUBLIC_URL) before it listens, so the port is chosen
 * first; when something took it in between (EADDRINUSE: another test's listener, or an outgoing
 * connection's local port), the start is tried again on another one.
 */
async function spawnSite(baseEnv: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string; env: NodeJS.ProcessEnv }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = { ...SERVE_ENV, ...baseEnv, PORT: String(port), PUBLIC_URL: url };
    const child = spawn(process.execPath, SERVE_ARGS, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    // Shown as the site writes it, and kept to tell a taken port from another failure (the site
    // logs it as JSON on stdout).
    let output = '';
    for (const [from, to] of [
      [child.stdout!, process.stdout],
      [child.stderr!, process.stderr],
    ] as const)
      from.on('data', (chunk: Buffer) => {
        to.write(chunk);
        output = (output + chunk.toString()).slice(-8000);
      });
    // Generous: a loaded machine starts it slowly.
    const deadline = Date.now() + 90_000;
    for (;;) {
      if (child.exitCode !== null) break;
      try {
        // Bounded: whatever holds the port may accept and never answer.
        const res = await fetch(`${url}/api/site`, { signal: AbortSignal.timeout(3000) });
        if (res.ok) return { child, url, env };
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        child.kill('SIGTERM');
        throw new Error('site did not start in 90 s');
      }
      await new Promise((r) => setTimeout(r, 150));
    }
    if (attempt < 3 && output.includes('EADDRINUSE')) continue;
    throw new Error(`site exited with ${child.exitCode}`);
  }
}

/**
 * Waits until the app has taken over the page: a guest's first page comes drawn by the server and
 * stays plain HTML (links work, buttons do nothing) until the app's script has run (boot.ts). A
 * page the app draws itself (no #kubik-first) is ready at once.
 */
export async function appReady(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    if (!document.getElementById('kubik-first')) return true;
    const first = document.querySelector('#root > *');
    return first !== null && Object.keys(first).some((key) => key.startsWith('__reactFiber$'));
  });
}

/**
 * goto() and reload() that return once the page is usable, as a player waits for a page to have
 * loaded: on a page the server drew, until the app has taken it over. A test that asks for its
 * own `waitUntil` gets Playwright's own behaviour.
 */
function waitForTheApp(page: Page): void {
  const ready = () => appReady(page);
  const goto = page.goto.bind(page);
  page.goto = async (url, options) => {
    const response = await goto(url, options);
    if (!options?.waitUntil) await ready();
    return response;
  };
  const reload = page.reload.bind(page);
  page.reload = async (options) => {
    const response = await reload(options);
    if (!options?.waitUntil) await ready();
    return response;
  };
}

/** Registers through the UI and confirms through the letter's link: a ready, logged-out player. */
export async function registerAndConfirm(site: Site, page: Page, username: string, password = 'kubik-pass-42'): Promise<void> {
  const email = `${username.toLowerCase()}@example.com`;
  await page.goto('/register');
  await page.getByLabel('Имя пользователя').fill(username);
  await page.getByLabel('Почта').fill(email);
  await page.getByLabel('Пароль').fill(password);
  await page.getByRole('button', { name: 'Зарегистрироваться' }).click();
  await page.waitForURL('**/login');
  const letter = await site.smtp.waitFor(email);
  await page.goto(linkIn(letter, '/api/user/confirm/'));
  await page.waitForURL('**/login?verified=true');
}

export async function loginUi(page: Page, username: string, password = 'kubik-pass-42'): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Имя или почта').fill(username);
  await page.getByLabel('Пароль').fill(password);
  await page.getByRole('button', { name: 'Войти' }).click();
  // On a phone the header's account menu sits in the collapsed navigation, so wait for the redirect.
  await page.waitForURL((url) => url.pathname !== '/login');
}

/**
 * Answers the site's own confirmation dialog (components/useConfirm.tsx): its action button, or
 * «Отмена»; returns the question it asked.
 */
export async function confirmDialog(page: Page, accept = true): Promise<string> {
  const dialog = page.getByTestId('confirm-dialog');
  await dialog.waitFor();
  const question = (await dialog.locator('p').first().textContent()) ?? '';
  await (accept ? dialog.getByRole('button').first() : dialog.getByRole('button', { name: 'Отмена' })).click();
  await dialog.waitFor({ state: 'detached' });
  return question;
}

/** Waits until the text is visible somewhere on the page (first match). */
export async function see(page: Page, text: string | RegExp, timeout = 10_000): Promise<void> {
  await page.getByText(text).first().waitFor({ state: 'visible', timeout });
}

/** Waits for a notification of the given type with exactly this text. */
export async function toast(page: Page, type: 'success' | 'danger' | 'info' | 'warning', text: string): Promise<void> {
  await page.locator(`.toast[data-type="${type}"]`, { hasText: text }).first().waitFor({ state: 'visible' });
}

/**
 * The error shown beside a form field (the control found by its label): the element its
 * aria-describedby names, inside the same field box (or radio group); null when there is none.
 */
export async function errorBeside(field: Locator): Promise<string | null> {
  return field.evaluate((el) => {
    const ids = (el.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean);
    const box = el.closest('.field, fieldset');
    const error = ids.map((id) => document.getElementById(id)).find((e) => e?.classList.contains('field-error'));
    return error && box?.contains(error) ? error.textContent : null;
  });
}

/** Waits until the field shows this error beside it (the whole text, or a match). */
export async function seeErrorBeside(field: Locator, text: string | RegExp, timeout = 10_000): Promise<void> {
  await until(
    () => errorBeside(field),
    (shown) => shown !== null && (typeof text === 'string' ? shown === text : text.test(shown)),
    `the error ${String(text)} beside the field`,
    timeout,
  );
}

/** Waits for the form's own error (about no one field), shown above its buttons. */
export async function seeFormError(scope: Page | Locator, text: string): Promise<void> {
  await scope.locator('.form-errors', { hasText: text }).first().waitFor({ state: 'visible' });
}

/** A JSON call from inside the page, with the page's session cookie (and Origin). */
export async function callApi(page: Page, method: string, url: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  return page.evaluate(
    async ({ method, url, body }) => {
      const res = await fetch(url, {
        method,
        credentials: 'include',
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json().catch(() => null)) as unknown };
    },
    { method, url, body },
  );
}

/** Probes every 200 ms until the value is right; on timeout fails with what was expected and the last value seen. */
export async function until<T>(probe: () => Promise<T>, ok: (v: T) => boolean, what: string, timeout = 15_000): Promise<T> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: last value ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
