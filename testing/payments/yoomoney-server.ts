/**
 * A fake of ЮMoney's wallet side for tests, written from its documentation
 * (yoomoney.ru/docs/payment-buttons/using-api/forms, …/notifications,
 * yoomoney.ru/docs/wallet/using-api/notification-p2p-incoming, …/operation-history); it shares
 * no code with the site.
 *
 * What it imitates:
 * - The quickpay form: POST /quickpay/confirm (form-encoded `receiver`, `quickpay-form`,
 *   `paymentType` PC | AC, `sum`, `label`, `successURL`); a form to another wallet or without a
 *   sum is refused. The page shows the sum and «Оплатить».
 * - Paying: the commission comes off what the wallet gets (AC: 3 % of the sum, PC: sum·(a/(1+a))
 *   with a = 0.01), so `amount` < `withdraw_amount` = `sum`; then the HTTP notification
 *   (form-encoded, `notification_type` card-incoming | p2p-incoming, `operation_id`, `amount`,
 *   `withdraw_amount`, `currency` 643, `datetime`, `sender`, `codepro`, `label`, `unaccepted`,
 *   `sha1_hash` = SHA-1 of notification_type&operation_id&amount&currency&datetime&sender&codepro&notification_secret&label)
 *   to the wallet's notification URL, then the payer is sent to successURL. ЮMoney tries three
 *   times; here `deliver()` may be called again to repeat one.
 * - «Протестировать» in the wallet's settings: a notification with `test_notification=true`.
 * - POST /api/operation-history (yoomoney.ru/docs/wallet/user-account/operation-history and
 *   …/using-api/format/protocol-response): form-encoded `type` (deposition | payment |
 *   incoming-transfers-unaccepted, space-separated), `label`, `from`, `till`, `start_record`,
 *   `records` (1…100, default 30), `details`. Records newest first: {operation_id, status
 *   (success | refused | in_progress), datetime, title, pattern_id (payments only), direction
 *   (in | out), amount (a JSON number: what reached the wallet, after the commission), label (when
 *   the operation has one), type}; `next_record` when more follow. A bad parameter answers 200 with
 *   `{"error": "illegal_param_type" | "illegal_param_records" | "illegal_param_label" |
 *   "illegal_param_start_record" | "illegal_param_from" | "illegal_param_till"}`. Authorization as
 *   the protocol says: no/garbled header → 400 with `WWW-Authenticate: Bearer
 *   error="invalid_request"`; an unknown, expired or revoked token → 401 `Bearer
 *   error="invalid_token"`; a token without the method's scope (`operation-history`,
 *   `account-info`; see `tokenScopes`) → 403 `Bearer error="insufficient_scope"`; those answers
 *   have no body. `record()` puts an operation into the history without a notification (a
 *   payment still in progress, a refused one, an outgoing payment…).
 * - POST /api/account-info (scope `account-info`): the wallet's number.
 */
import { createHash, randomInt } from 'node:crypto';
import type http from 'node:http';
import { escapeHtml, HttpDouble, postForm, sendHtml, sendJson, type RequestBody } from './http-util.ts';

export interface YooMoneyOperation {
  operation_id: string;
  label: string;
  sum: string;
  amount: string;
  paymentType: 'PC' | 'AC';
  datetime: string;
  successURL: string;
  /** In the history: success (default), refused or in_progress. */
  status?: 'success' | 'refused' | 'in_progress';
  /** In the history: in (default: money came to the wallet) or out (the wallet paid). */
  direction?: 'in' | 'out';
}

const HISTORY_TYPES = ['deposition', 'payment', 'incoming-transfers-unaccepted'];
/** RFC 3339 datetime as the API takes it (`2011-07-01T00:00:00.000+04:00`, `…Z`). */
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

const MONEY = /^\d{1,10}(\.\d{1,2})?$/;
const fromKop = (k: number) => `${Math.floor(k / 100)}.${String(k % 100).padStart(2, '0')}`;

export class FakeYooMoney extends HttpDouble {
  readonly operations: YooMoneyOperation[] = [];
  /** Notifications sent: the fields and the site's answer status. */
  readonly notifications: { fields: Record<string, string>; status: number }[] = [];
  /** The wallet's «HTTP-уведомления» address. */
  notificationUrl: string | null = null;
  readonly oauthToken = 'test-oauth-token-410012345678901';
  /** What the token was issued for (a test may take `operation-history` away to see 403 insufficient_scope). */
  tokenScopes = new Set(['account-info', 'operation-history']);
  /** The history requests received (their form fields), for tests. */
  readonly historyRequests: Record<string, string>[] = [];
  private readonly pending = new Map<string, Omit<YooMoneyOperation, 'operation_id' | 'amount' | 'datetime'>>();

  constructor(
    readonly wallet = '410012345678901',
    readonly secret = 'yoomoney-notification-secret',
  ) {
    super();
  }

  get formUrl(): string {
    return `${this.url}/quickpay/confirm`;
  }

  get apiUrl(): string {
    return `${this.url}/api`;
  }

  protected crashed(res: http.ServerResponse, err: unknown): void {
    sendJson(res, 500, { error: String(err) });
  }

  /** sha1_hash as ЮMoney computes it. */
  sign(f: Record<string, string>, secret = this.secret): string {
    const line = [f.notification_type, f.operation_id, f.amount, f.currency, f.datetime, f.sender, f.codepro, secret, f.label]
      .map((v) => v ?? '')
      .join('&');
    return createHash('sha1').update(line, 'utf8').digest('hex');
  }

  /** The notification of an operation, signed (overrides are applied before signing unless `sha1_hash` is given). */
  notificationFor(op: YooMoneyOperation, overrides: Record<string, string> = {}): Record<string, string> {
    const f: Record<string, string> = {
      notification_type: op.paymentType === 'AC' ? 'card-incoming' : 'p2p-incoming',
      operation_id: op.operation_id,
      amount: op.amount,
      withdraw_amount: op.sum,
      currency: '643',
      datetime: op.datetime,
      sender: op.paymentType === 'AC' ? '' : '41001000000000',
      codepro: 'false',
      label: op.label,
      unaccepted: 'false',
      ...overrides,
    };
    return { ...f, sha1_hash: overrides.sha1_hash ?? this.sign(f) };
  }

  /** «Протестировать»: a test notification. */
  testNotification(): Record<string, string> {
    const f: Record<string, string> = {
      notification_type: 'p2p-incoming',
      operation_id: 'test-notification',
      amount: '100.00',
      withdraw_amount: '100.50',
      currency: '643',
      datetime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      sender: '41001000040',
      codepro: 'false',
      label: '',
      test_notification: 'true',
    };
    return { ...f, sha1_hash: this.sign(f) };
  }

  async deliver(fields: Record<string, string>): Promise<number> {
    if (!this.notificationUrl) return 0;
    const { status } = await postForm(this.notificationUrl, fields);
    this.notifications.push({ fields, status });
    return status;
  }

  /** Pays a form submitted earlier (by its label), as the payer pressing «Оплатить». */
  async pay(label: string): Promise<YooMoneyOperation> {
    const form = this.pending.get(label);
    if (!form) throw new Error(`no quickpay form with label ${label}`);
    this.pending.delete(label);
    const sum = Math.round(Number(form.sum) * 100);
    const received = form.paymentType === 'AC' ? sum - Math.ceil(sum * 0.03) : sum - Math.ceil((sum * 0.01) / 1.01);
    const op: YooMoneyOperation = {
      ...form,
      operation_id: String(randomInt(100_000_000, 999_999_999)) + String(randomInt(100_000, 999_999)),
      amount: fromKop(received),
      datetime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    };
    this.operations.push(op);
    await this.deliver(this.notificationFor(op));
    return op;
  }

  /** Puts an operation into the wallet's history without any notification. */
  record(op: Partial<YooMoneyOperation> & { label: string; amount: string }): YooMoneyOperation {
    const full: YooMoneyOperation = {
      operation_id: String(randomInt(100_000_000, 999_999_999)) + String(randomInt(100_000, 999_999)),
      sum: op.amount,
      paymentType: 'AC',
      datetime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      successURL: '',
      ...op,
    };
    this.operations.push(full);
    return full;
  }

  /** The protocol's authorization answers: true when the request was refused (and answered). */
  private refuseAuth(req: http.IncomingMessage, res: http.ServerResponse, scope: string): boolean {
    const auth = req.headers.authorization;
    const m = /^Bearer ([\w.-]+)$/.exec(auth ?? '');
    let refusal: [number, string] | null = null;
    if (!m) refusal = [400, 'invalid_request'];
    else if (m[1] !== this.oauthToken) refusal = [401, 'invalid_token'];
    else if (!this.tokenScopes.has(scope)) refusal = [403, 'insufficient_scope'];
    if (!refusal) return false;
    res.writeHead(refusal[0], { 'www-authenticate': `Bearer error="${refusal[1]}"`, 'cache-control': 'no-cache' });
    res.end();
    return true;
  }

  private history(form: Record<string, string>): Record<string, unknown> {
    const types = form.type === undefined ? HISTORY_TYPES : form.type.split(' ').filter(Boolean);
    if (types.length === 0 || types.some((t) => !HISTORY_TYPES.includes(t))) return { error: 'illegal_param_type' };
    const records = form.records === undefined ? 30 : Number(form.records);
    if (!/^\d{1,3}$/.test(form.records ?? '30') || records < 1 || records > 100) return { error: 'illegal_param_records' };
    if (form.label !== undefined && (form.label === '' || form.label.length > 64)) return { error: 'illegal_param_label' };
    const start = form.start_record === undefined ? 0 : Number(form.start_record);
    if (form.start_record !== undefined && !/^\d{1,9}$/.test(form.start_record)) return { error: 'illegal_param_start_record' };
    if (form.from !== undefined && !DATETIME.test(form.from)) return { error: 'illegal_param_from' };
    if (form.till !== undefined && !DATETIME.test(form.till)) return { error: 'illegal_param_till' };
    const from = form.from === undefined ? -Infinity : Date.parse(form.from);
    const till = form.till === undefined ? Infinity : Date.parse(form.till);
    const matching = this.operations
      .filter((o) => {
        const dir = o.direction ?? 'in';
        const t = Date.parse(o.datetime);
        return (
          ((types.includes('deposition') && dir === 'in') || (types.includes('payment') && dir === 'out')) &&
          (form.label === undefined || o.label === form.label) &&
          t >= from &&
          t < till
        );
      })
      .reverse();
    const page = matching.slice(start, start + records).map((o) => {
      const dir = o.direction ?? 'in';
      return {
        operation_id: o.operation_id,
        status: o.status ?? 'success',
        datetime: o.datetime,
        title: dir === 'out' ? 'Оплата услуг' : o.paymentType === 'AC' ? 'Пополнение с банковской карты' : 'Перевод от 41001000000000',
        ...(dir === 'out' ? { pattern_id: 'p2p' } : {}),
        direction: dir,
        amount: Number(o.amount),
        ...(o.label ? { label: o.label } : {}),
        type: dir === 'out' ? 'outgoing-transfer' : o.paymentType === 'AC' ? 'deposition' : 'incoming-transfer',
      };
    });
    return start + records < matching.length ? { next_record: String(start + records), operations: page } : { operations: page };
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse, { form }: RequestBody): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    if (req.method === 'POST' && url.pathname === '/quickpay/confirm') {
      if (form.receiver !== this.wallet) return sendHtml(res, 400, '<p>Кошелёк получателя не найден</p>');
      if (form['quickpay-form'] !== 'button' || !['PC', 'AC'].includes(form.paymentType ?? '') || !MONEY.test(form.sum ?? ''))
        return sendHtml(res, 400, '<p>Неверные параметры формы</p>');
      const label = (form.label ?? '').slice(0, 64);
      this.pending.set(label, { label, sum: form.sum!, paymentType: form.paymentType as 'PC' | 'AC', successURL: form.successURL ?? '' });
      return sendHtml(
        res,
        200,
        `<!doctype html><meta charset="utf-8"><title>ЮMoney</title><h1>Перевод на кошелёк ${escapeHtml(this.wallet)}</h1>
<p>Сумма: <b data-testid="amount">${escapeHtml(form.sum!)}</b></p>
<form method="post" action="/quickpay/pay"><input type="hidden" name="label" value="${escapeHtml(label)}"><button>Оплатить</button></form>`,
      );
    }
    if (req.method === 'POST' && url.pathname === '/quickpay/pay') {
      const op = await this.pay(form.label ?? '');
      res.writeHead(302, { location: op.successURL || this.url });
      return void res.end();
    }
    if (req.method === 'POST' && url.pathname === '/api/operation-history') {
      this.historyRequests.push(form);
      if (this.refuseAuth(req, res, 'operation-history')) return;
      return sendJson(res, 200, this.history(form));
    }
    if (req.method === 'POST' && url.pathname === '/api/account-info') {
      if (this.refuseAuth(req, res, 'account-info')) return;
      return sendJson(res, 200, { account: this.wallet, balance: 0, currency: '643' });
    }
    sendJson(res, 404, { error: 'not_found' });
  }
}
