import { PAYMENT_PROVIDER_TEXT, PAYMENT_PROVIDERS, type PaymentProvider } from '@kubik/contract';
import {
  PROVIDER_FIELD_TEXT,
  PROVIDER_FIELDS,
  providerUrlHosts,
  type AdminPaymentProvider,
  type ProviderUpdateBody,
} from '@kubik/contract/payment-connections';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../lib/errors.ts';
import { toKopecks, toRoubles } from '../../lib/money.ts';
import { freekassaAdapter } from '../../lib/payments/freekassa.ts';
import { tbankAdapter } from '../../lib/payments/tbank.ts';
import type { PaymentAdapter, RefusalReason } from '../../lib/payments/types.ts';
import { yookassaAdapter } from '../../lib/payments/yookassa.ts';
import { yoomoneyAdapter } from '../../lib/payments/yoomoney.ts';
import { ownerOnly } from '../../lib/owner-only.ts';
import { addressProblem, normalAddress, OWNER_ONLY_ADDRESS, sameAddress } from '../../lib/provider-address.ts';
import { SecretBox } from '../../lib/secret-box.ts';
import { WriteBehind } from '../../lib/write-behind.ts';
import { recordAudit } from '../audit/audit.service.ts';
import * as repo from './payments.repo.ts';

export type Adapters = Partial<Record<PaymentProvider, PaymentAdapter>>;

const CHANNEL = 'kubik_payment_providers';

/** Keys each provider needs before it is offered. */
const REQUIRED: Record<PaymentProvider, string[]> = {
  yookassa: ['shop_id', 'secret_key'],
  tbank: ['terminal_key', 'password'],
  yoomoney: ['wallet', 'notification_secret'],
  freekassa: ['merchant_id', 'secret1', 'secret2'],
};

/**
 * Refusals of a staff member's change (403 owner_only, beside the field): what decides where
 * players' money goes (the shop, terminal, wallet or merchant and the address), whom the site
 * trusts as a payment (the keys that sign and check notifications and answers) and whether a
 * provider takes money at all is the owner's alone. Staff with `settings` keep the bounds, the
 * receipts switch and switching a provider off: none of them sends money elsewhere or trusts anyone.
 */
export const PROVIDER_OWNER_TEXTS = {
  field: 'Это меняет только владелец сайта: от этого зависит, куда уходят деньги игроков',
  secret: 'Ключи платёжной системы меняет только владелец сайта',
  enable: 'Включить способ оплаты может только владелец сайта (выключить может и сотрудник)',
} as const;

const DEFAULT_URLS: Record<string, string> = {
  'yookassa.api_url': 'https://api.yookassa.ru/v3',
  'tbank.api_url': 'https://securepay.tinkoff.ru/v2',
  'yoomoney.form_url': 'https://yoomoney.ru/quickpay/confirm',
  'yoomoney.api_url': 'https://yoomoney.ru/api',
  'freekassa.form_url': 'https://pay.freekassa.com/',
  'freekassa.api_url': 'https://api.freekassa.com/v1',
};

const DEFAULT_FREEKASSA_IPS = ['168.119.157.136', '168.119.60.227', '178.154.197.79', '51.250.54.238'];
const DEFAULT_YOOKASSA_IPS = [
  '185.71.76.0/27',
  '185.71.77.0/27',
  '77.75.153.0/25',
  '77.75.156.11',
  '77.75.156.35',
  '77.75.154.128/25',
  '2a02:5180::/32',
];

export const REFUSAL_TEXT: Record<RefusalReason | 'test', string> = {
  foreign_ip: 'С чужого адреса',
  bad_token: 'Неверная подпись',
  malformed: 'Неполное или непонятное уведомление',
  codepro: 'Перевод с кодом протекции',
  unaccepted: 'Перевод не принят (unaccepted)',
  wrong_account: 'Для другого магазина',
  rate_limited: 'Слишком много уведомлений с одного адреса',
  test: 'Тестовое уведомление (принято)',
};

/** One provider as it applies now: the environment's values under the owner's. */
export interface EffectiveProvider {
  id: PaymentProvider;
  enabled: boolean;
  connected: boolean;
  missing: string[];
  receipts: boolean;
  minKopecks: number | null;
  maxKopecks: number | null;
  fields: Record<string, string>;
  secrets: Record<string, string>;
  secretSource: Record<string, 'set' | 'env' | 'unset'>;
}

function parseObject(text: string): Record<string, string> {
  try {
    const v: unknown = JSON.parse(text);
    if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
    return Object.fromEntries(Object.entries(v).filter(([, x]) => typeof x === 'string')) as Record<string, string>;
  } catch {
    return {};
  }
}

function parseTimes(text: string | null | undefined): Record<string, number> {
  try {
    const v: unknown = JSON.parse(text ?? '{}');
    if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
    return Object.fromEntries(Object.entries(v).filter(([, x]) => typeof x === 'number')) as Record<string, number>;
  } catch {
    return {};
  }
}

/**
 * The owner's stored fields that may be used: an address that breaks the rules of
 * lib/provider-address.ts (stored before them) is left out, so the environment's applies and no
 * key is sent to it.
 */
function usableFields(id: PaymentProvider, stored: Record<string, string>, env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(stored).filter(([k, v]) => {
      const hosts = providerUrlHosts(id, k);
      return hosts === null || addressProblem(v, hosts, env[k]) === null;
    }),
  );
}

/** Who saves a provider's settings: only the owner changes its addresses. */
export interface ProviderEditor {
  id: number;
  owner: boolean;
}

/** The environment's values of each provider (PaymentsConfig), as fields and secrets. */
function envOf(
  ctx: AppContext,
): Record<PaymentProvider, { fields: Record<string, string>; secrets: Record<string, string>; receipts: boolean }> {
  const p = ctx.config.payments;
  const urls = { ...DEFAULT_URLS, ...p.defaults?.urls };
  const clean = (o: Record<string, string | undefined>) =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => typeof v === 'string' && v !== '')) as Record<string, string>;
  return {
    yookassa: {
      fields: clean({ shop_id: p.yookassa?.shopId, api_url: p.yookassa?.apiUrl ?? urls['yookassa.api_url'] }),
      secrets: clean({ secret_key: p.yookassa?.secretKey }),
      receipts: p.yookassa?.receipts ?? false,
    },
    tbank: {
      fields: clean({ terminal_key: p.tbank?.terminalKey, api_url: p.tbank?.apiUrl ?? urls['tbank.api_url'] }),
      secrets: clean({ password: p.tbank?.password }),
      receipts: p.tbank?.receipts ?? false,
    },
    yoomoney: {
      fields: clean({
        wallet: p.yoomoney?.wallet,
        form_url: p.yoomoney?.formUrl ?? urls['yoomoney.form_url'],
        api_url: p.yoomoney?.apiUrl ?? urls['yoomoney.api_url'],
      }),
      secrets: clean({ notification_secret: p.yoomoney?.notificationSecret, oauth_token: p.yoomoney?.oauthToken }),
      receipts: false,
    },
    freekassa: {
      fields: clean({
        merchant_id: p.freekassa?.merchantId,
        form_url: p.freekassa?.formUrl ?? urls['freekassa.form_url'],
        api_url: p.freekassa?.apiUrl ?? urls['freekassa.api_url'],
      }),
      secrets: clean({ secret1: p.freekassa?.secret1, secret2: p.freekassa?.secret2, api_key: p.freekassa?.apiKey }),
      receipts: false,
    },
  };
}

/** Whether the environment alone connects the provider: then it is on unless the owner switched it off. */
function envConnects(id: PaymentProvider, env: { fields: Record<string, string>; secrets: Record<string, string> }): boolean {
  return REQUIRED[id].every((k) => env.fields[k] || env.secrets[k]);
}

function adapterFor(ctx: AppContext, e: EffectiveProvider): PaymentAdapter {
  const p = ctx.config.payments;
  const f = e.fields;
  const s = e.secrets;
  switch (e.id) {
    case 'yookassa':
      return yookassaAdapter({
        shopId: f.shop_id!,
        secretKey: s.secret_key!,
        apiUrl: f.api_url!.replace(/\/+$/, ''),
        receipts: e.receipts,
        notifyIps: p.yookassa?.notifyIps ?? p.defaults?.yookassaNotifyIps ?? DEFAULT_YOOKASSA_IPS,
      });
    case 'tbank':
      return tbankAdapter({
        terminalKey: f.terminal_key!,
        password: s.password!,
        apiUrl: f.api_url!.replace(/\/+$/, ''),
        receipts: e.receipts,
      });
    case 'yoomoney':
      return yoomoneyAdapter({
        wallet: f.wallet!,
        notificationSecret: s.notification_secret!,
        oauthToken: s.oauth_token,
        formUrl: f.form_url!,
        apiUrl: f.api_url!.replace(/\/+$/, ''),
      });
    case 'freekassa':
      return freekassaAdapter({
        merchantId: f.merchant_id!,
        secret1: s.secret1!,
        secret2: s.secret2!,
        apiKey: s.api_key,
        formUrl: f.form_url!,
        apiUrl: f.api_url!.replace(/\/+$/, ''),
        notifyIps: p.freekassa?.notifyIps ?? p.defaults?.freekassaNotifyIps ?? DEFAULT_FREEKASSA_IPS,
      });
  }
}

/**
 * The payment providers as the owner set them up (Платежи → Подключения) over the environment's
 * defaults. Adapters are built from the merged settings and cached; a change on any instance is
 * announced on the shared notification channel and every instance rebuilds on its next use (no
 * restart). While the channel is down nothing is cached. Secrets are sealed in the database and
 * leave this class only inside adapters.
 */
export class ProviderRegistry {
  private cached: { effective: Record<PaymentProvider, EffectiveProvider>; adapters: Adapters } | null = null;
  private generation = 0;
  readonly box: SecretBox;
  /** Refused notifications, counted for the owner's summary (list()). */
  readonly refusals: RefusalCounter;

  constructor(private readonly ctx: AppContext) {
    this.refusals = new RefusalCounter(ctx);
    this.box = new SecretBox(ctx.config.secretsKey, ctx.config.dataDir);
    ctx.notifications.on(CHANNEL, () => this.drop());
    ctx.notifications.onDown(() => this.drop());
  }

  private drop(): void {
    this.cached = null;
    this.generation += 1;
  }

  private async load(): Promise<{ effective: Record<PaymentProvider, EffectiveProvider>; adapters: Adapters }> {
    if (this.cached && this.ctx.notifications.up) return this.cached;
    const generation = this.generation;
    const rows = await repo.providerSettings(this.ctx.db);
    const env = envOf(this.ctx);
    const effective = {} as Record<PaymentProvider, EffectiveProvider>;
    const adapters: Adapters = {};
    for (const id of PAYMENT_PROVIDERS) {
      const row = rows.find((r) => r.provider === id);
      const stored = row ? usableFields(id, parseObject(row.fields), env[id].fields) : {};
      const sealed = row ? parseObject(row.secrets) : {};
      const fields = { ...env[id].fields, ...stored };
      const secrets: Record<string, string> = { ...env[id].secrets };
      const secretSource: Record<string, 'set' | 'env' | 'unset'> = {};
      for (const k of PROVIDER_FIELDS[id].secrets) secretSource[k] = env[id].secrets[k] ? 'env' : 'unset';
      for (const [k, v] of Object.entries(sealed)) {
        const plain = this.box.open(v);
        if (plain === null) continue;
        secrets[k] = plain;
        secretSource[k] = 'set';
      }
      const missing = REQUIRED[id].filter((k) => !fields[k] && !secrets[k]).map((k) => PROVIDER_FIELD_TEXT[k] ?? k);
      const enabled = row?.enabled === null || row?.enabled === undefined ? envConnects(id, env[id]) : row.enabled === 1;
      const e: EffectiveProvider = {
        id,
        enabled,
        connected: enabled && missing.length === 0,
        missing: enabled ? missing : [],
        receipts: row?.receipts === null || row?.receipts === undefined ? env[id].receipts : row.receipts === 1,
        minKopecks: row?.min_kopecks === null || row?.min_kopecks === undefined ? null : Number(row.min_kopecks),
        maxKopecks: row?.max_kopecks === null || row?.max_kopecks === undefined ? null : Number(row.max_kopecks),
        fields,
        secrets,
        secretSource,
      };
      effective[id] = e;
      if (e.connected) {
        try {
          adapters[id] = adapterFor(this.ctx, e);
        } catch {
          e.connected = false;
          e.missing = ['Некорректные настройки'];
        }
      }
    }
    const loaded = { effective, adapters };
    if (this.ctx.notifications.up && generation === this.generation) this.cached = loaded;
    return loaded;
  }

  /** The connected providers' adapters, by name. */
  async adapters(): Promise<Adapters> {
    return (await this.load()).adapters;
  }

  async effective(): Promise<Record<PaymentProvider, EffectiveProvider>> {
    return (await this.load()).effective;
  }

  notificationUrl(id: PaymentProvider): string {
    return `${this.ctx.config.publicUrl}/api/payments/${id}/notify`;
  }

  /** The owner's view: state, plain fields, secrets only as set/unset, where to send notifications, refusals summed up. */
  async list(): Promise<AdminPaymentProvider[]> {
    const effective = await this.effective();
    await this.refusals.flush();
    const refusals = await repo.refusalSummary(this.ctx.db);
    const dropped = await repo.droppedSecrets(this.ctx.db);
    return PAYMENT_PROVIDERS.map((id) => {
      const e = effective[id];
      return {
        id,
        name: PAYMENT_PROVIDER_TEXT[id],
        enabled: e.enabled,
        connected: e.connected,
        missing: e.missing,
        receipts: PROVIDER_FIELDS[id].receipts ? e.receipts : null,
        min: e.minKopecks === null ? null : toRoubles(e.minKopecks),
        max: e.maxKopecks === null ? null : toRoubles(e.maxKopecks),
        fields: Object.fromEntries(PROVIDER_FIELDS[id].fields.map((k) => [k, e.fields[k] ?? ''])),
        secrets: { ...e.secretSource },
        secrets_dropped: parseTimes(dropped.find((r) => r.provider === id)?.dropped_secrets),
        notification_url: this.notificationUrl(id),
        refusals: refusals
          .filter((r) => r.provider === id)
          .map((r) => ({
            reason: r.reason,
            reason_text: REFUSAL_TEXT[r.reason as RefusalReason] ?? r.reason,
            count: Number(r.count),
            first_at: Number(r.first_at),
            last_at: Number(r.last_at),
            last_ip: r.last_ip,
          })),
      };
    });
  }

  /**
   * Saves the changes (secrets sealed), records them in the audit log without any secret, and
   * tells every instance. An address (lib/provider-address.ts) must be https on the provider's own
   * host or the environment's, and its change drops every key stored for the provider in the same
   * transaction — but those typed in this same request, which are meant for the new address.
   * Every field (the shop, terminal, wallet or merchant, the addresses), every key and switching a
   * provider on are the owner's alone (PROVIDER_OWNER_TEXTS); a staff member's value sent as it
   * stands (the form sends every field) is no change and is not written.
   */
  async update(id: PaymentProvider, body: ProviderUpdateBody, editor: ProviderEditor): Promise<void> {
    const spec = PROVIDER_FIELDS[id];
    for (const k of Object.keys(body.fields ?? {}))
      if (!(spec.fields as readonly string[]).includes(k))
        throw badRequest(`Неизвестное поле «${k}»`, { code: 'invalid', field: `fields.${k}` });
    for (const k of Object.keys(body.secrets ?? {}))
      if (!(spec.secrets as readonly string[]).includes(k))
        throw badRequest(`Неизвестный ключ «${k}»`, { code: 'invalid', field: `secrets.${k}` });
    if (body.receipts !== undefined && !spec.receipts)
      throw badRequest('Чеки через этот способ оплаты не настраиваются', { code: 'invalid', field: 'receipts' });
    const env = envOf(this.ctx)[id];
    const now = Date.now();
    await this.ctx.db.transaction().execute(async (trx) => {
      const before = await repo.lockProviderSettings(trx, this.ctx.dbKind, id, now);
      const fields = parseObject(before.fields);
      const secrets = parseObject(before.secrets);
      const dropped = parseTimes(before.dropped_secrets);
      const inUse = { ...env.fields, ...usableFields(id, fields, env.fields) };
      const changed: string[] = [];
      let moved = false;
      for (const [k, raw] of Object.entries(body.fields ?? {})) {
        const v = raw === null || raw === '' ? null : raw;
        const hosts = providerUrlHosts(id, k);
        const same = hosts ? sameAddress(inUse[k], v ?? env.fields[k]) : (inUse[k] ?? '') === (v ?? env.fields[k] ?? '');
        if (same && (hosts || !editor.owner)) {
          if (hosts && v === null) delete fields[k];
          continue;
        }
        if (!editor.owner) throw ownerOnly(hosts ? OWNER_ONLY_ADDRESS : PROVIDER_OWNER_TEXTS.field, `fields.${k}`);
        if (hosts) {
          const problem = v === null ? null : addressProblem(v, hosts, env.fields[k]);
          if (problem) throw badRequest(problem, { code: 'invalid', field: `fields.${k}` });
          moved = true;
          const label = PROVIDER_FIELD_TEXT[k] ?? k;
          changed.push(`${label}: ${v === null ? `как в переменных окружения (${env.fields[k] ?? ''})` : normalAddress(v)}`);
        } else changed.push(PROVIDER_FIELD_TEXT[k] ?? k);
        if (v === null) delete fields[k];
        else fields[k] = v;
      }
      // A staff member's removal of a key that is not stored changes nothing; any other key change is the owner's.
      const secretChanges = Object.entries(body.secrets ?? {}).filter(([k, v]) => {
        if (editor.owner) return true;
        if ((v === null || v === '') && secrets[k] === undefined) return false;
        throw ownerOnly(PROVIDER_OWNER_TEXTS.secret, `secrets.${k}`);
      });
      const enabledNow = before.enabled === null ? envConnects(id, env) : before.enabled === 1;
      if (body.enabled === true && !enabledNow && !editor.owner) throw ownerOnly(PROVIDER_OWNER_TEXTS.enable, 'enabled');
      const typed = new Set(secretChanges.flatMap(([k, v]) => (v ? [k] : [])));
      if (moved)
        for (const k of Object.keys(secrets)) {
          if (typed.has(k)) continue;
          delete secrets[k];
          dropped[k] = now;
          changed.push(`${PROVIDER_FIELD_TEXT[k] ?? k}: удалён, потому что сменился адрес`);
        }
      for (const [k, v] of secretChanges) {
        if (v === null || v === '') delete secrets[k];
        else secrets[k] = this.box.seal(v);
        delete dropped[k];
        changed.push(`${PROVIDER_FIELD_TEXT[k] ?? k}: ${v === null || v === '' ? 'удалён' : 'задан заново'}`);
      }
      const min = body.min === undefined ? before.min_kopecks : body.min === null ? null : toKopecks(body.min);
      const max = body.max === undefined ? before.max_kopecks : body.max === null ? null : toKopecks(body.max);
      if (min !== null && max !== null && Number(min) > Number(max))
        throw badRequest('Минимальная сумма больше максимальной', { code: 'invalid', field: 'min' });
      // Staff sending the switch as it stands leave it as stored (not pinned over the environment).
      const keep = body.enabled === undefined || (!editor.owner && body.enabled === enabledNow);
      const enabled = keep ? before.enabled : body.enabled ? 1 : 0;
      const receipts = body.receipts === undefined ? before.receipts : body.receipts ? 1 : 0;
      await repo.saveProviderSettings(trx, id, {
        enabled,
        receipts,
        min_kopecks: min === null ? null : Number(min),
        max_kopecks: max === null ? null : Number(max),
        fields: JSON.stringify(fields),
        secrets: JSON.stringify(secrets),
        dropped_secrets: JSON.stringify(dropped),
        updated_at: now,
      });
      await recordAudit(trx, {
        actorId: editor.id,
        action: 'payment.provider',
        entity: 'payment',
        entityId: id,
        before: {
          provider: PAYMENT_PROVIDER_TEXT[id],
          enabled: before.enabled === null ? null : before.enabled === 1,
          min: before.min_kopecks === null ? null : toRoubles(Number(before.min_kopecks)),
          max: before.max_kopecks === null ? null : toRoubles(Number(before.max_kopecks)),
        },
        after: {
          provider: PAYMENT_PROVIDER_TEXT[id],
          enabled: enabled === null ? null : enabled === 1,
          min: min === null ? null : toRoubles(Number(min)),
          max: max === null ? null : toRoubles(Number(max)),
          ...(changed.length > 0 ? { changed: changed.join('; ') } : {}),
        },
      });
    });
    this.drop();
    await this.ctx.notifications.notify(CHANNEL, id);
  }
}

/** Refusals of one provider and reason counted since the last write: how many, when, the last sender. */
interface RefusalTally {
  provider: string;
  reason: RefusalReason | 'test';
  count: number;
  firstAt: number;
  lastAt: number;
  lastIp: string | null;
}

/**
 * Refused notifications (forged, from a foreign address, over the per-address limit, tests),
 * counted in memory and added to payment_refusals in one update per provider and reason at most
 * every 10 s and before this instance shows the owner's summary (another instance's refusals reach
 * it within 10 s): a flood of forgeries costs no write per request (on PostgreSQL each one had
 * waited for the same row's lock, holding a connection the site's other requests need) and is
 * still counted whole. Once the site is stopping (close()), each refusal is written before it is
 * answered, so the requests still draining are counted before the database closes.
 */
export class RefusalCounter {
  private readonly pending = new Map<string, RefusalTally>();
  private closing = false;
  private readonly tallies = new WriteBehind(
    () => {
      if (this.pending.size === 0) return undefined;
      const batch = [...this.pending.values()];
      this.pending.clear();
      return batch;
    },
    (batch: RefusalTally[]) => this.write(batch),
    10_000,
  );

  constructor(private readonly ctx: AppContext) {}

  /** Counts a refusal; a promise to await before answering only while the site is stopping. */
  add(provider: string, reason: RefusalReason | 'test', ip: string | null): Promise<void> | undefined {
    const now = Date.now();
    this.merge({ provider, reason, count: 1, firstAt: now, lastAt: now, lastIp: ip });
    if (this.closing) return this.flush();
    this.tallies.soon();
    return undefined;
  }

  /** Writes what is counted; resolves when that and every earlier write are done. */
  flush(): Promise<void> {
    return this.tallies.flush();
  }

  /** The site is stopping: what is counted is written now, and every later refusal at once. */
  close(): Promise<void> {
    this.closing = true;
    return this.flush();
  }

  private merge(t: RefusalTally): void {
    const key = `${t.provider} ${t.reason}`;
    const seen = this.pending.get(key);
    if (!seen) return void this.pending.set(key, { ...t });
    seen.count += t.count;
    seen.firstAt = Math.min(seen.firstAt, t.firstAt);
    if (t.lastAt >= seen.lastAt) {
      seen.lastAt = t.lastAt;
      seen.lastIp = t.lastIp;
    }
  }

  private async write(batch: RefusalTally[]): Promise<void> {
    for (const tally of batch) {
      try {
        await repo.addRefusals(this.ctx.db, tally);
      } catch {
        // The database is away: the counts wait for the next write.
        this.merge(tally);
        if (!this.closing) this.tallies.soon();
      }
    }
  }
}
