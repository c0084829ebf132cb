import {
  CONSENT_TEXT,
  LEGAL_DOC_TEXT,
  LEGAL_FORM_TEXT,
  TAX_SYSTEM_TEXT,
  type ConsentKind,
  type FiscalSettings,
  type LegalDocKind,
} from '@kubik/contract';
import type { Db } from '../../db/index.ts';
import { badRequest } from '../../lib/errors.ts';
import * as repo from './legal.repo.ts';

/** The versions of each document published now (absent: never published). */
export async function publishedVersions(db: Db): Promise<Partial<Record<LegalDocKind, number>>> {
  return Object.fromEntries((await repo.latestDocuments(db)).map((d) => [d.kind, d.version]));
}

/**
 * What registration must carry: a checkbox for each of the offer and the personal-data policy the
 * owner has published; nothing while neither is (the spec's three fields alone then register).
 */
export async function registerConsentsNeeded(db: Db): Promise<ConsentKind[]> {
  const published = await publishedVersions(db);
  return (['privacy', 'offer'] as const).filter((k) => published[k] !== undefined);
}

/**
 * What a player must accept before paying: each published document whose newest version they have
 * not accepted (a new version of the offer asks again), and once the adult-or-parental-consent
 * confirmation.
 */
export async function paymentConsentsNeeded(db: Db, userId: number): Promise<ConsentKind[]> {
  const [published, accepted] = await Promise.all([publishedVersions(db), repo.acceptedVersions(db, userId)]);
  const needed: ConsentKind[] = [];
  for (const k of ['offer', 'privacy'] as const) {
    const v = published[k];
    if (v !== undefined && (accepted[k] ?? 0) < v) needed.push(k);
  }
  if (!accepted.age) needed.push('age');
  return needed;
}

const MISSING_TEXT: Record<ConsentKind, string> = {
  privacy: 'Нужно согласие на обработку персональных данных: отметьте его отдельно',
  offer: 'Нужно принять условия публичной оферты',
  age: 'Подтвердите, что вам есть 18 лет или у вас есть согласие родителей',
};

/** Refuses (400 consent_required, field consents) when a needed consent is not among those given. */
export function requireConsents(needed: readonly ConsentKind[], given: readonly string[] | undefined): void {
  const missing = needed.find((k) => !(given ?? []).includes(k));
  if (missing) throw badRequest(MISSING_TEXT[missing], { code: 'consent_required', field: 'consents' });
}

export interface ConsentMeta {
  ip: string | null;
  userAgent: string | null;
  source: 'register' | 'social' | 'payment';
  /** When they were given (a social registration's step, before its letter's link); now by default. */
  at?: number;
}

/** Stores each acceptance of `kinds` (the documents at their published version; `age` as version 1), in the caller's transaction. */
export async function recordConsents(trx: Db, userId: number, kinds: readonly ConsentKind[], meta: ConsentMeta): Promise<void> {
  if (kinds.length === 0) return;
  const published = await publishedVersions(trx);
  const now = meta.at ?? Date.now();
  const rows = [...new Set(kinds)].flatMap((kind) => {
    const version = kind === 'age' ? 1 : published[kind];
    if (version === undefined) return [];
    return [
      {
        user_id: userId,
        kind,
        version,
        accepted_at: now,
        ip: meta.ip?.slice(0, 64) ?? null,
        user_agent: meta.userAgent?.slice(0, 300) ?? null,
        source: meta.source,
      },
    ];
  });
  await repo.insertConsents(trx, rows);
}

/** What a guest paying for a nickname ticks once the owner has published the offer or the policy: all of it, every time (no account remembers it). */
export async function guestConsentsNeeded(db: Db): Promise<ConsentKind[]> {
  const published = await publishedVersions(db);
  const docs = (['offer', 'privacy'] as const).filter((k) => published[k] !== undefined);
  return docs.length > 0 ? [...docs, 'age'] : [];
}

/** Stores a guest's acceptances with the order and nickname they were given for, in the caller's transaction. */
export async function recordGuestConsents(
  trx: Db,
  order: { id: string; nickname: string },
  kinds: readonly ConsentKind[],
  meta: { ip: string | null; userAgent: string | null },
): Promise<void> {
  if (kinds.length === 0) return;
  const published = await publishedVersions(trx);
  const now = Date.now();
  const rows = [...new Set(kinds)].flatMap((kind) => {
    const version = kind === 'age' ? 1 : published[kind];
    if (version === undefined) return [];
    return [
      {
        user_id: null,
        kind,
        version,
        accepted_at: now,
        ip: meta.ip?.slice(0, 64) ?? null,
        user_agent: meta.userAgent?.slice(0, 300) ?? null,
        source: 'guest',
        guest_order_id: order.id,
        guest_nickname: order.nickname.slice(0, 32),
      },
    ];
  });
  await repo.insertConsents(trx, rows);
}

export { CONSENT_TEXT };

/** A starter text naming the seller from the fiscal settings; the owner edits it before publishing. */
export function legalTemplate(kind: LegalDocKind, f: FiscalSettings, site: { name: string; url: string }): { title: string; body: string } {
  const seller = f.name || '[наименование продавца]';
  const ids = [
    `ИНН ${f.inn || '[ИНН]'}`,
    f.legal_form === 'self_employed' ? '' : `${f.legal_form === 'ooo' ? 'ОГРН' : 'ОГРНИП'} ${f.ogrn || '[номер]'}`,
  ]
    .filter(Boolean)
    .join(', ');
  const contacts = [f.email && `почта ${f.email}`, f.phone && `телефон ${f.phone}`, f.address && `адрес ${f.address}`]
    .filter(Boolean)
    .join(', ');
  const who = `${seller} (${LEGAL_FORM_TEXT[f.legal_form]}; ${ids})`;
  const title = LEGAL_DOC_TEXT[kind];
  const note = '> Это шаблон. Проверьте текст с юристом: сайт не даёт юридических советов.';
  if (kind === 'offer')
    return {
      title,
      body: [
        `# ${title}`,
        note,
        `## 1. Стороны`,
        `${who}${contacts ? `; ${contacts}` : ''} (далее — Продавец) предлагает любому пользователю сайта ${site.url} «${site.name}» (далее — Покупатель) заключить договор на условиях ниже. Оплата означает полное и безоговорочное принятие оферты (ст. 438 ГК РФ).`,
        `## 2. Предмет`,
        `Продавец оказывает услуги по предоставлению игровых привилегий и виртуальных предметов на игровом сервере. Баланс на сайте — предоплата (аванс) за эти услуги; при покупке с баланса Продавец выдаёт чек «полный расчёт» с зачётом аванса.`,
        `## 3. Цены и оплата`,
        `Цены указаны на сайте в рублях. Система налогообложения Продавца: ${TAX_SYSTEM_TEXT[f.tax_system_code] ?? f.tax_system_code}. Чеки по 54-ФЗ направляются на почту из аккаунта.`,
        `## 4. Возврат`,
        `Возврат неизрасходованной предоплаты — по правилам возврата, опубликованным на сайте.`,
        `## 5. Возраст`,
        `Покупатель подтверждает, что ему исполнилось 18 лет или у него есть согласие родителей (законных представителей).`,
        `## 6. Реквизиты`,
        `${who}${contacts ? `\n\n${contacts}` : ''}`,
      ].join('\n\n'),
    };
  if (kind === 'privacy')
    return {
      title,
      body: [
        `# ${title}`,
        note,
        `Оператор персональных данных — ${who}${contacts ? `; ${contacts}` : ''}.`,
        `## Какие данные обрабатываются`,
        `Имя пользователя, адрес электронной почты, IP-адрес, сведения о браузере, история платежей и покупок.`,
        `## Цели`,
        `Регистрация и вход на сайт ${site.url}, оказание оплаченных услуг, отправка чеков по 54-ФЗ, ответы на обращения, безопасность.`,
        `## Согласие`,
        `Согласие даётся отдельной отметкой при регистрации (152-ФЗ, ст. 9) и может быть отозвано письмом оператору; при отзыве аккаунт удаляется.`,
        `## Сроки и права`,
        `Данные хранятся, пока существует аккаунт, и в сроки, установленные законом для платёжных и кассовых документов. Пользователь вправе получить сведения о своих данных, потребовать их уточнения или удаления.`,
      ].join('\n\n'),
    };
  return {
    title,
    body: [
      `# ${title}`,
      note,
      `Продавец — ${who}.`,
      `## Неизрасходованный баланс`,
      `Неизрасходованную часть пополнения можно вернуть на карту, с которой она оплачена: напишите в поддержку${f.email ? ` (${f.email})` : ''}. Бонусы и промокоды деньгами не возвращаются.`,
      `## Выданные привилегии и предметы`,
      `Услуга, оказанная полностью (привилегия активирована, предмет выдан), возврату не подлежит, кроме случаев, когда она оказана ненадлежащим образом.`,
      `## Сроки`,
      `Возврат производится в течение 10 дней с момента обращения. Чек возврата направляется на почту из аккаунта.`,
    ].join('\n\n'),
  };
}
