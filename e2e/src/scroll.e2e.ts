import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, loginUi, startSite, until, type Site } from './harness.ts';

const PHONE = { width: 360, height: 740 };

// Long enough that every page, however short its own content, scrolls on a phone.
const FOOTER_TEXT =
  'Kubik — сервер для тех, кто любит строить, исследовать и играть вместе. Мы открыты каждый день, ' +
  'проводим ивенты по выходным и помогаем новичкам освоиться. Вопросы о покупках, блокировках и ' +
  'работе сайта задавайте в поддержке: ответим в течение дня. Играя на сервере, вы соглашаетесь с ' +
  'правилами. Название Minecraft принадлежит Mojang; мы с ней не связаны.';

interface Walked {
  /** What the test says when it fails: «шапка: Вход». */
  name: string;
  href: string;
  /** Clicks the link, opening whatever menu holds it first. */
  click: (page: Page) => Promise<void>;
  /** Brings the link into view first (the footer's, at the bottom of the page). */
  reveal?: (page: Page) => Promise<void>;
}

/**
 * A tap where the element is on the screen, as a finger does it. (Playwright's click first
 * scrolls the element «into view», and for the sticky header that scrolled the page to its top
 * before the link was even followed.)
 */
async function tap(page: Page, target: Locator): Promise<void> {
  await target.waitFor();
  const box = await target.boundingBox();
  if (!box) throw new Error('nothing to tap');
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
}

const scrollY = (page: Page) => page.evaluate(() => Math.round(window.scrollY));
const maxScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight);
const address = (page: Page) => {
  const url = new URL(page.url());
  return url.pathname + url.search + url.hash;
};

/** The header's menu (☰) on a phone, opened if it is closed. */
async function openNav(page: Page): Promise<void> {
  const toggle = page.getByRole('button', { name: 'Меню' });
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await tap(page, toggle);
}

/** Waits until the page stays where it is scrolled to (and answers where that is). */
async function settled(page: Page): Promise<number> {
  let last = -1;
  return until(
    async () => {
      await page.waitForTimeout(150);
      const [was, now] = [last, await scrollY(page)];
      last = now;
      return { was, now };
    },
    ({ was, now }) => was === now,
    'the page stays put',
  ).then(({ now }) => now);
}

/** Where an #anchor's element stands: just under the sticky header. */
async function anchorTop(page: Page, id: string): Promise<number> {
  return page.evaluate((id) => Math.round(document.getElementById(id)?.getBoundingClientRect().top ?? -1), id);
}

/**
 * Clicks the link from a page scrolled down, and checks the three rules: the new page opens at
 * its top (or at its #anchor), Back returns to where the previous page was scrolled, Forward to
 * the new page's top again.
 */
async function walk(page: Page, link: Walked): Promise<void> {
  const from = address(page);
  const target = link.href;
  await settled(page);
  const room = await maxScroll(page);
  expect(room, `${from} must scroll for «${link.name}» to be tested`).toBeGreaterThan(100);
  await page.evaluate((y) => window.scrollTo(0, y), Math.min(300, room));
  await link.reveal?.(page);
  const y = await settled(page);
  expect(y, `${from} scrolled down before «${link.name}»`).toBeGreaterThan(0);

  await link.click(page);
  await until(
    async () => address(page),
    (at) => at === target,
    `«${link.name}» from ${from} leads to ${target}`,
  );
  await page.locator('main h1, main h2').first().waitFor();
  const [path, hash] = target.split('#');
  const atOpening = async () => {
    if (hash) {
      await until(
        () => anchorTop(page, hash),
        (top) => top >= 60 && top <= 100,
        `«${link.name}»: #${hash} under the header`,
      );
      expect(await scrollY(page), `«${link.name}»: scrolled to its anchor`).toBeGreaterThan(0);
    } else {
      await until(
        () => scrollY(page),
        (v) => v === 0,
        `«${link.name}» (${path}) opens at its top`,
      );
    }
  };
  await atOpening();
  // Still there once its data and pictures have come in.
  await page.waitForTimeout(400);
  await atOpening();
  expect(await maxScroll(page), `${target} must scroll for the test to mean anything`).toBeGreaterThan(0);

  await page.goBack();
  await page.waitForURL((url) => url.pathname + url.search + url.hash === from);
  await until(
    () => scrollY(page),
    (v) => v === y,
    `Back from «${link.name}» returns to ${from} at ${y}`,
  );

  await page.goForward();
  await page.waitForURL((url) => url.pathname + url.search + url.hash === target);
  await atOpening();
}

/** Links of the header's navigation and of the footer, as a visitor on a phone reaches them. */
async function headerAndFooterLinks(page: Page): Promise<Walked[]> {
  const nav = page.locator('#main-nav');
  const collect = async (
    scope: Locator,
    where: string,
    find: (page: Page, name: string, href: string) => Locator,
    open?: (page: Page) => Promise<void>,
  ): Promise<Walked[]> =>
    (
      await scope
        .locator('a[href^="/"]')
        .evaluateAll((links) => links.map((a) => ({ name: a.textContent?.trim() ?? '', href: a.getAttribute('href') ?? '' })))
    ).map(({ name, href }) => ({
      name: `${where}: ${name}`,
      href,
      click: async (p: Page) => {
        await open?.(p);
        await tap(p, find(p, name, href));
      },
      reveal: open ? undefined : (p: Page) => find(p, name, href).scrollIntoViewIfNeeded(),
    }));

  const header = [
    {
      name: 'шапка: логотип',
      href: '/',
      click: (p: Page) => tap(p, p.locator('header .brand')),
    },
    ...(await collect(nav, 'шапка', (p, name, href) => p.locator(`#main-nav a[href="${href}"]`, { hasText: name }).first(), openNav)),
  ];
  const footer = await collect(page.locator('footer'), 'подвал', (p, name, href) =>
    p.locator(`footer a[href="${href}"]`, { hasText: name }).first(),
  );
  return [...header, ...footer];
}

/** Walks the links in an order where no link leads to the page it is clicked on. */
async function walkAll(page: Page, links: Walked[]): Promise<string[]> {
  const walked: string[] = [];
  const left = [...links];
  while (left.length > 0) {
    const here = address(page);
    const i = left.findIndex((l) => l.href !== here);
    if (i < 0) throw new Error(`every link left leads to ${here}`);
    const [link] = left.splice(i, 1);
    await walk(page, link!);
    walked.push(link!.name);
  }
  return walked;
}

describe('where a page opens: top, #anchor, and Back/Forward to where the player was', () => {
  let site: Site;
  beforeAll(async () => {
    site = await startSite();
    const owner = await site.newPage();
    await loginUi(owner, 'Founder', 'founder-password-42');
    const ok = async (method: string, url: string, body: unknown) => {
      const res = await callApi(owner, method, url, body);
      expect(res.status, `${method} ${url}: ${JSON.stringify(res.json)}`).toBeLessThan(300);
    };
    await ok('PUT', '/api/admin/settings', { footer_text: FOOTER_TEXT, game_address: 'play.kubik.test' });
    const rules = Array.from({ length: 12 }, (_, i) => `${i + 1}. Правило номер ${i + 1}: уважайте других игроков и их постройки.`);
    await ok('PUT', '/api/admin/pages/rules', { title: 'Правила', body: `## Основные правила\n\n${rules.join('\n')}` });
    await ok('PUT', '/api/admin/pages/offer', {
      title: 'Публичная оферта',
      body: 'Условия покупки привилегий и предметов.',
      place: 'footer',
    });
    for (let i = 1; i <= 4; i++)
      await ok('POST', '/api/tidings/news', { title: `Новость ${i}`, content: `Что нового на сервере: часть ${i}. `.repeat(6) });
  });
  afterAll(async () => {
    await site?.stop();
  });

  it('a guest on a phone: every link of the header and the footer', async () => {
    const page = await site.newPage(PHONE);
    await page.goto('/servers');
    const links = await headerAndFooterLinks(page);
    const names = links.map((l) => l.name);
    // The walk covers what a guest sees: the menu, the account links, the footer with its anchor.
    for (const expected of ['шапка: Правила', 'шапка: Вход', 'шапка: Регистрация', 'подвал: Скачать лаунчер', 'подвал: Публичная оферта'])
      expect(names).toContain(expected);
    expect(links.find((l) => l.name === 'подвал: Скачать лаунчер')!.href).toBe('/help#launcher');
    const walked = await walkAll(page, links);
    expect(walked).toHaveLength(links.length);
  });

  it('a signed-in player on a phone: the account menu, the balance and the header', async () => {
    const page = await site.newPage(PHONE);
    await loginUi(page, 'Founder', 'founder-password-42');
    await page.goto('/servers');
    await page.getByTestId('header-balance').waitFor({ state: 'attached' });
    const menuItem = (name: string, href: string): Walked => ({
      name: `меню игрока: ${name}`,
      href,
      click: async (p) => {
        await openNav(p);
        await tap(p, p.getByRole('button', { name: /Founder/ }));
        await tap(p, p.getByRole('menuitem', { name }));
      },
    });
    const links: Walked[] = [
      ...(await headerAndFooterLinks(page)).filter((l) => l.name.startsWith('шапка')),
      menuItem('Личный кабинет', '/profile'),
      menuItem('Пополнить баланс', '/topup'),
      menuItem('Магазин', '/shop'),
      menuItem('Админ-панель', '/admin'),
    ];
    // The balance in the header is a link to the top-up page, among the header's own.
    expect(links.filter((l) => l.href === '/topup').length).toBe(2);
    const walked = await walkAll(page, links);
    expect(walked).toContain('меню игрока: Админ-панель');
    expect(walked).toHaveLength(links.length);
  });

  it('a #anchor link opened from another page, and a reload, keep the rules too', async () => {
    const page = await site.newPage(PHONE);
    await page.goto('/help#launcher');
    await until(
      () => anchorTop(page, 'launcher'),
      (top) => top >= 60 && top <= 100,
      'a first page opens at its #anchor',
    );
    await page.goto('/rules');
    await page.evaluate(() => window.scrollTo(0, 250));
    await until(
      () => scrollY(page),
      (v) => v === 250,
      'scrolled',
    );
    await page.reload();
    await until(
      () => scrollY(page),
      (v) => v === 250,
      'a reload keeps the place',
    );
  });
});
