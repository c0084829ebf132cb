/**
 * A fake of T-Bank (Tinkoff) internet acquiring, API v2, written from its documentation
 * (developer.tbank.ru/eacq), for tests: the site talks to it over real HTTP as to
 * https://securepay.tinkoff.ru/v2.
 *
 * What it imitates, quirks included:
 * - Every method is a JSON POST signed with `Token`: the root object's scalar parameters (not
 *   nested objects such as DATA or Receipt, not Token) plus Password, sorted by key, values
 *   concatenated, SHA-256 in lower-case hex. A wrong Token: `Success: false` with ErrorCode 204 and
 *   HTTP 200 — errors are in the body, not in the status.
 * - Init takes Amount in kopecks (an integer, at least 1000), OrderId (up to 36 characters),
 *   Description, NotificationURL, SuccessURL, FailURL; answers `Status: "NEW"`, `PaymentId` as a
 *   string and `PaymentURL`.
 * - One-stage payments: paying goes NEW → FORM_SHOWED → AUTHORIZED → CONFIRMED, and the merchant
 *   is notified at AUTHORIZED and at CONFIRMED; a refused card ends in REJECTED.
 * - Notifications carry `PaymentId` as a number, `Success` as a boolean (in the Token it counts as
 *   "true"/"false"), `Pan`, `ExpDate`, `CardId`; they are repeated until the answer is exactly `OK`.
 * - GetState answers the current Status; Cancel turns CONFIRMED into REFUNDED (or
 *   PARTIAL_REFUNDED), NEW into CANCELED (Amount ignored) and AUTHORIZED into REVERSED; its answer
 *   carries OriginalAmount, NewAmount and ExternalRequestId. A Cancel repeating an ExternalRequestId
 *   already used for the payment cancels nothing and answers the current state. Cancel of a payment
 *   in any other status (already REFUNDED, REJECTED…) is refused with ErrorCode 8.
 * - Receipts (54-ФЗ, the terminal on T-Bank's online cash register, `receiptsRequired`): Init needs a
 *   `Receipt` {Email or Phone, Taxation (osn, usn_income, usn_income_outcome, envd, esn, patent),
 *   Items [{Name ≤ 128, Price, Quantity, Amount = Price × Quantity, Tax (none, vat0, vat5, vat7,
 *   vat10, vat20, vat22, vat105, vat107, vat110, vat120, vat122), PaymentMethod, PaymentObject}]}
 *   whose Amounts add up to the payment's Amount. SendClosingReceipt (…/cashbox/SendClosingReceipt,
 *   PaymentId and Receipt, signed like the others) closes the advance of a CONFIRMED payment whose
 *   Init Receipt had a full_prepayment (or prepayment, advance) item, and never for more than that
 *   advance less the closings before. The bank's code for a refused receipt is not in the error
 *   table we read: the double answers Success false, ErrorCode 309, and a Message naming the field.
 * - Error codes and texts as T-Bank's own table (developer.tbank.ru/eacq/intro/errors/error-codes,
 *   also the `ErrorCode` description in its OpenAPI file): 8 «Неверный статус транзакции» (7 is the
 *   customer's status), 204 «Неверный токен…», 251 amount too small, 212/213 OrderId/Description
 *   size, 255 «Платеж не найден», 330 «Сумма в запросе больше чем в оригинальной транзакции»,
 *   501 «Терминал не найден», 9999 «Внутренняя ошибка системы» (repeat later).
 * - Recurring payments (developer.tbank.ru/eacq/api/charge): Init with `Recurrent: "Y"` and
 *   `CustomerKey` makes a parent payment; once paid, its notifications carry `RebillId`. A later
 *   charge is Init of a new payment (no redirect) and Charge {PaymentId, RebillId}: the card is
 *   charged at once — CONFIRMED (and notified), or REJECTED with
 *   `Success: false` and the bank's code: 1051 «Недостаточно средств на карте», 1054 «Истек срок
 *   действия карты», 104 when the issuer asks 3-D Secure of the absent payer (this double's code
 *   for it). An unknown RebillId is refused (ErrorCode 8); Charge of a payment not NEW, ErrorCode 4.
 */
import { createHash, randomBytes } from 'node:crypto';
import type http from 'node:http';
import { escapeHtml, HttpDouble, postNotification, sendHtml, sendJson, type RequestBody, type SeenRequest } from './http-util.ts';

export interface TBankPayment {
  PaymentId: number;
  OrderId: string;
  Amount: number;
  Status: string;
  Description: string;
  NotificationURL: string | null;
  SuccessURL: string | null;
  FailURL: string | null;
  code: string;
  refunded: number;
  /** ExternalRequestId of the Cancel requests done: a repeat answers the state instead of canceling again. */
  cancelRequests: Set<string>;
  /** A parent of recurring payments (Init with Recurrent "Y" and CustomerKey). */
  customerKey?: string;
  /** The saved card's id, once the parent is paid (or the one a Charge used). */
  rebillId?: string;
  /** The Receipt sent with Init, and the closing receipts sent since. */
  receipt?: Record<string, unknown>;
  closings: Record<string, unknown>[];
}

const TAXATIONS = ['osn', 'usn_income', 'usn_income_outcome', 'envd', 'esn', 'patent'];
const TAXES = ['none', 'vat0', 'vat5', 'vat7', 'vat10', 'vat20', 'vat22', 'vat105', 'vat107', 'vat110', 'vat120', 'vat122'];
const METHODS = ['full_prepayment', 'prepayment', 'advance', 'full_payment', 'partial_payment', 'credit', 'credit_payment'];
const OBJECTS = [
  'commodity',
  'excise',
  'job',
  'service',
  'gambling_bet',
  'gambling_prize',
  'lottery',
  'lottery_prize',
  'intellectual_activity',
  'payment',
  'agent_commission',
  'composite',
  'another',
];
const PREPAY = ['full_prepayment', 'prepayment', 'advance'];

/** What is wrong with a Receipt (a Message naming the field), or null; `sum` is the Items' Amounts. */
export function tbankReceiptProblem(r: unknown): { message: string } | { sum: number; prepaid: number } {
  const receipt = r as { Email?: unknown; Phone?: unknown; Taxation?: unknown; Items?: unknown } | null;
  if (!receipt || typeof receipt !== 'object') return { message: 'Receipt: нет чека' };
  if (typeof receipt.Email !== 'string' && typeof receipt.Phone !== 'string') return { message: 'Receipt.Email: нужна почта или телефон' };
  if (!TAXATIONS.includes(receipt.Taxation as string)) return { message: 'Receipt.Taxation: неверная система налогообложения' };
  if (!Array.isArray(receipt.Items) || receipt.Items.length === 0) return { message: 'Receipt.Items: нет позиций' };
  let sum = 0;
  let prepaid = 0;
  for (const [i, it] of (receipt.Items as Record<string, unknown>[]).entries()) {
    const at = `Receipt.Items[${i}]`;
    if (typeof it.Name !== 'string' || it.Name.length === 0 || it.Name.length > 128) return { message: `${at}.Name: от 1 до 128 символов` };
    if (!Number.isSafeInteger(it.Price) || !Number.isFinite(it.Quantity) || !Number.isSafeInteger(it.Amount))
      return { message: `${at}: Price, Quantity и Amount — числа` };
    if (Math.round((it.Price as number) * (it.Quantity as number)) !== it.Amount)
      return { message: `${at}.Amount: не равно Price × Quantity` };
    if (!TAXES.includes(it.Tax as string)) return { message: `${at}.Tax: неверная ставка НДС` };
    if (!METHODS.includes(it.PaymentMethod as string)) return { message: `${at}.PaymentMethod: неверный признак способа расчёта` };
    if (!OBJECTS.includes(it.PaymentObject as string)) return { message: `${at}.PaymentObject: неверный признак предмета расчёта` };
    sum += it.Amount as number;
    if (PREPAY.includes(it.PaymentMethod as string)) prepaid += it.Amount as number;
  }
  return { sum, prepaid };
}

/** How the bank answers a Charge of a saved card. */
export type RebillOutcome = 'ok' | 'insufficient_funds' | 'card_expired' | '3ds';

const REBILL_REFUSAL: Record<Exclude<RebillOutcome, 'ok'>, { code: string; message: string }> = {
  insufficient_funds: { code: '1051', message: 'Недостаточно средств на карте' },
  card_expired: { code: '1054', message: 'Истек срок действия карты' },
  '3ds': { code: '104', message: 'Требуется прохождение 3DS' },
};

/** The documented Token rule, written here on its own so a mistake in the site's copy shows. */
export function signTBank(params: Record<string, unknown>, password: string): string {
  const entries = Object.entries({ ...params, Password: password })
    .filter(([k, v]) => k !== 'Token' && v !== null && v !== undefined && typeof v !== 'object')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256')
    .update(entries.map(([, v]) => String(v)).join(''))
    .digest('hex');
}

export class FakeTBank extends HttpDouble {
  readonly payments = new Map<number, TBankPayment>();
  readonly requests: SeenRequest[] = [];
  readonly notifications: { body: Record<string, unknown>; status: number; text: string }[] = [];
  /** The next Cancel calls are refused with this error (the bank's word, HTTP 200). */
  refuseCancel: { code: string; message: string; details?: string } | null = null;
  /** The next N API calls fail with HTTP 503 (the bank did not answer). */
  failNext = 0;
  /**
   * The next calls of these methods are carried out, and their answers lost on the way back (a
   * timeout, a dropped connection): the site sees 504 while the bank did the work.
   */
  readonly loseAnswers = new Map<string, number>();
  /** The terminal sends receipts through T-Bank's cash register: Init must carry a Receipt. */
  receiptsRequired = false;
  private nextId = 3_093_639_500 + Math.floor(Math.random() * 1000);
  /** Saved cards by RebillId: whose they are and how the bank answers the next Charge. */
  readonly rebills = new Map<string, { customerKey: string; pan: string; outcome: RebillOutcome }>();
  private nextRebill = 1_700_000_000 + Math.floor(Math.random() * 1000);

  constructor(
    readonly terminalKey = '1700000000000DEMO',
    readonly password = 'demo_password_01',
  ) {
    super();
  }

  get apiUrl(): string {
    return `${this.url}/v2`;
  }

  protected crashed(res: http.ServerResponse, err: unknown): void {
    sendJson(res, 500, { Success: false, ErrorCode: '9999', Message: String(err) });
  }

  private fail(res: http.ServerResponse, code: string, message: string, details = ''): void {
    sendJson(res, 200, { Success: false, ErrorCode: code, Message: message, Details: details });
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse, { text, json, form }: RequestBody): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    if (url.pathname.startsWith('/new/')) return this.paymentPage(req, res, url, form);
    this.requests.push({ method: req.method ?? '', path: url.pathname, headers: req.headers, body: json ?? text });
    if (this.failNext > 0) {
      this.failNext -= 1;
      res.writeHead(503, { 'content-type': 'text/html' });
      return void res.end('<html><body>Service Unavailable</body></html>');
    }
    const method =
      /^\/v2\/(\w+)$/.exec(url.pathname)?.[1] ?? (url.pathname === '/cashbox/SendClosingReceipt' ? 'SendClosingReceipt' : undefined);
    if (req.method !== 'POST' || !method) return sendJson(res, 404, { Success: false, ErrorCode: '9999', Message: 'Метод не найден' });
    const lose = this.loseAnswers.get(method) ?? 0;
    if (lose > 0) {
      this.loseAnswers.set(method, lose - 1);
      await this.answer(req, method, json, url, { writeHead: () => undefined, end: () => undefined } as unknown as http.ServerResponse);
      res.writeHead(504, { 'content-type': 'text/html' });
      return void res.end('<html><body>Gateway Time-out</body></html>');
    }
    return this.answer(req, method, json, url, res);
  }

  private async answer(req: http.IncomingMessage, method: string, json: unknown, url: URL, res: http.ServerResponse): Promise<void> {
    const b = (json ?? {}) as Record<string, unknown>;
    if (b.TerminalKey !== this.terminalKey) return this.fail(res, '501', 'Терминал не найден.');
    if (typeof b.Token !== 'string' || b.Token !== signTBank(b, this.password))
      return this.fail(res, '204', 'Неверный токен. Проверьте пару TerminalKey/SecretKey.');

    if (method === 'Init') {
      if (!Number.isSafeInteger(b.Amount) || (b.Amount as number) < 1000)
        return this.fail(res, '251', 'Неверная сумма. Сумма должна быть больше или равна 1000 копеек.');
      if (typeof b.OrderId !== 'string' || b.OrderId.length === 0 || b.OrderId.length > 36)
        return this.fail(res, '212', 'Размер поля OrderId должен быть от 1 до 36.');
      if (b.Description !== undefined && (typeof b.Description !== 'string' || b.Description.length > 140))
        return this.fail(res, '213', 'Размер поля Description должен быть от 0 до 140.');
      if (this.receiptsRequired || b.Receipt !== undefined) {
        const check = tbankReceiptProblem(b.Receipt);
        if ('message' in check) return this.fail(res, '309', 'Неверные параметры чека.', check.message);
        if (check.sum !== b.Amount)
          return this.fail(res, '309', 'Неверные параметры чека.', 'Receipt.Items: сумма позиций не равна Amount');
      }
      const p: TBankPayment = {
        PaymentId: this.nextId++,
        OrderId: b.OrderId,
        Amount: b.Amount as number,
        Status: 'NEW',
        Description: typeof b.Description === 'string' ? b.Description : '',
        NotificationURL: typeof b.NotificationURL === 'string' ? b.NotificationURL : null,
        SuccessURL: typeof b.SuccessURL === 'string' ? b.SuccessURL : null,
        FailURL: typeof b.FailURL === 'string' ? b.FailURL : null,
        code: randomBytes(6).toString('base64url'),
        refunded: 0,
        cancelRequests: new Set(),
        ...(b.Recurrent === 'Y' && typeof b.CustomerKey === 'string' && b.CustomerKey !== '' ? { customerKey: b.CustomerKey } : {}),
        ...(b.Receipt ? { receipt: b.Receipt as Record<string, unknown> } : {}),
        closings: [],
      };
      this.payments.set(p.PaymentId, p);
      return sendJson(res, 200, {
        Success: true,
        ErrorCode: '0',
        TerminalKey: this.terminalKey,
        Status: p.Status,
        PaymentId: String(p.PaymentId),
        OrderId: p.OrderId,
        Amount: p.Amount,
        PaymentURL: `${this.url}/new/${p.code}`,
      });
    }
    const p = this.payments.get(Number(b.PaymentId));
    if (!p) return this.fail(res, '255', 'Платеж не найден.');
    if (method === 'SendClosingReceipt') {
      if (p.Status !== 'CONFIRMED') return this.fail(res, '8', 'Неверный статус транзакции.');
      const first = p.receipt ? tbankReceiptProblem(p.receipt) : null;
      if (!first || 'message' in first || first.prepaid === 0)
        return this.fail(res, '309', 'Неверные параметры чека.', 'В платеже не было чека с предоплатой');
      const check = tbankReceiptProblem(b.Receipt);
      if ('message' in check) return this.fail(res, '309', 'Неверные параметры чека.', check.message);
      const closed = p.closings.reduce((sum, c) => sum + (tbankReceiptProblem(c) as { sum: number }).sum, 0);
      if (check.sum > first.prepaid - closed - p.refunded)
        return this.fail(res, '309', 'Неверные параметры чека.', 'Сумма чека закрытия больше внесённой предоплаты');
      p.closings.push(b.Receipt as Record<string, unknown>);
      return sendJson(res, 200, { Success: true, ErrorCode: '0', Message: 'OK' });
    }
    if (method === 'GetState') {
      return sendJson(res, 200, {
        Success: true,
        ErrorCode: '0',
        Message: 'OK',
        TerminalKey: this.terminalKey,
        Status: p.Status,
        PaymentId: String(p.PaymentId),
        OrderId: p.OrderId,
        Amount: p.Amount,
      });
    }
    if (method === 'Charge') {
      const rebill = typeof b.RebillId === 'string' || typeof b.RebillId === 'number' ? this.rebills.get(String(b.RebillId)) : undefined;
      if (!rebill) return this.fail(res, '8', 'Неверный статус транзакции.', 'Карта с таким RebillId не найдена.');
      if (p.Status !== 'NEW') return this.fail(res, '4', 'Изменение статуса транзакции невозможно.', `Платёж в статусе ${p.Status}.`);
      p.rebillId = String(b.RebillId);
      if (rebill.outcome !== 'ok') {
        const why = REBILL_REFUSAL[rebill.outcome];
        p.Status = 'REJECTED';
        void this.notify(p);
        return sendJson(res, 200, {
          Success: false,
          ErrorCode: why.code,
          Message: why.message,
          TerminalKey: this.terminalKey,
          Status: p.Status,
          PaymentId: String(p.PaymentId),
          OrderId: p.OrderId,
          Amount: p.Amount,
        });
      }
      p.Status = 'CONFIRMED';
      void this.notify(p);
      return sendJson(res, 200, {
        Success: true,
        ErrorCode: '0',
        TerminalKey: this.terminalKey,
        Status: 'CONFIRMED',
        PaymentId: String(p.PaymentId),
        OrderId: p.OrderId,
        Amount: p.Amount,
      });
    }
    if (method === 'Cancel') {
      if (this.refuseCancel) return this.fail(res, this.refuseCancel.code, this.refuseCancel.message, this.refuseCancel.details ?? '');
      const externalId = typeof b.ExternalRequestId === 'string' && b.ExternalRequestId !== '' ? b.ExternalRequestId : null;
      if (externalId !== null && p.cancelRequests.has(externalId)) {
        return sendJson(res, 200, {
          Success: true,
          ErrorCode: '0',
          TerminalKey: this.terminalKey,
          Status: p.Status,
          PaymentId: String(p.PaymentId),
          OrderId: p.OrderId,
          OriginalAmount: p.Amount,
          NewAmount: p.Amount - p.refunded,
          ExternalRequestId: externalId,
        });
      }
      const original = p.Amount;
      const amount = b.Amount === undefined ? p.Amount - p.refunded : Number(b.Amount);
      if (p.Status === 'NEW' || p.Status === 'FORM_SHOWED') p.Status = 'CANCELED';
      else if (p.Status === 'AUTHORIZED') p.Status = 'REVERSED';
      else if (p.Status === 'CONFIRMED' || p.Status === 'PARTIAL_REFUNDED') {
        if (!Number.isSafeInteger(amount) || amount <= 0 || amount > p.Amount - p.refunded)
          return this.fail(res, '330', 'Сумма в запросе больше чем в оригинальной транзакции.');
        p.refunded += amount;
        p.Status = p.refunded === p.Amount ? 'REFUNDED' : 'PARTIAL_REFUNDED';
      } else return this.fail(res, '8', 'Неверный статус транзакции.', `Платёж в статусе ${p.Status}.`);
      if (externalId !== null) p.cancelRequests.add(externalId);
      void this.notify(p);
      return sendJson(res, 200, {
        Success: true,
        ErrorCode: '0',
        TerminalKey: this.terminalKey,
        Status: p.Status,
        PaymentId: String(p.PaymentId),
        OrderId: p.OrderId,
        OriginalAmount: original,
        NewAmount: p.Amount - p.refunded,
        ...(externalId !== null && { ExternalRequestId: externalId }),
      });
    }
    return this.fail(res, '9999', 'Метод не поддерживается.');
  }

  byOrder(orderId: string): TBankPayment {
    const p = [...this.payments.values()].find((x) => x.OrderId === orderId);
    if (!p) throw new Error(`no T-Bank payment for order ${orderId}`);
    return p;
  }

  /** The notification T-Bank sends about the payment's current state, signed. */
  notificationFor(p: TBankPayment): Record<string, unknown> {
    const failed = p.Status === 'REJECTED';
    const body: Record<string, unknown> = {
      TerminalKey: this.terminalKey,
      OrderId: p.OrderId,
      Success: !failed,
      Status: p.Status,
      PaymentId: p.PaymentId,
      ErrorCode: failed ? '1051' : '0',
      Amount: p.Amount,
      CardId: 123456789,
      Pan: p.rebillId ? (this.rebills.get(p.rebillId)?.pan ?? '430000******0777') : '430000******0777',
      ExpDate: '1230',
      ...(p.rebillId && !failed ? { RebillId: Number(p.rebillId) } : {}),
    };
    return { ...body, Token: signTBank(body, this.password) };
  }

  /** Posts the notification to the payment's NotificationURL; T-Bank counts it delivered only on `OK`. */
  async notify(p: TBankPayment): Promise<boolean> {
    if (!p.NotificationURL) return false;
    const body = this.notificationFor(p);
    const { status, text } = await postNotification(p.NotificationURL, body);
    this.notifications.push({ body, status, text });
    return status === 200 && text === 'OK';
  }

  /** The payer pays with a card: AUTHORIZED, then CONFIRMED, each notified. */
  async pay(p: TBankPayment, notify = true): Promise<void> {
    if (p.Status !== 'NEW' && p.Status !== 'FORM_SHOWED') return;
    if (p.customerKey && !p.rebillId) {
      p.rebillId = String(this.nextRebill++);
      this.rebills.set(p.rebillId, { customerKey: p.customerKey, pan: '430000******0777', outcome: 'ok' });
    }
    p.Status = 'AUTHORIZED';
    if (notify) await this.notify(p);
    p.Status = 'CONFIRMED';
    if (notify) await this.notify(p);
  }

  /** How the bank answers the next Charges of a saved card. */
  setRebillOutcome(rebillId: string, outcome: RebillOutcome): void {
    const r = this.rebills.get(rebillId);
    if (!r) throw new Error(`no RebillId ${rebillId}`);
    r.outcome = outcome;
  }

  /** The bank refuses the card. */
  async reject(p: TBankPayment, notify = true): Promise<void> {
    if (p.Status !== 'NEW' && p.Status !== 'FORM_SHOWED') return;
    p.Status = 'REJECTED';
    if (notify) await this.notify(p);
  }

  private async paymentPage(req: http.IncomingMessage, res: http.ServerResponse, url: URL, form: Record<string, string>): Promise<void> {
    const code = url.pathname.slice('/new/'.length);
    const p = [...this.payments.values()].find((x) => x.code === code);
    if (!p) return sendHtml(res, 404, '<!doctype html><title>Т-Банк</title><p>Платёж не найден</p>');
    if (req.method === 'POST') {
      if (form.action === 'pay') await this.pay(p);
      else await this.reject(p);
      const to = p.Status === 'CONFIRMED' ? p.SuccessURL : p.FailURL;
      res.writeHead(302, { location: to ?? this.url });
      return void res.end();
    }
    if (p.Status === 'NEW') p.Status = 'FORM_SHOWED';
    sendHtml(
      res,
      200,
      `<!doctype html><html lang="ru"><head><meta charset="utf-8"><title>Т-Банк — оплата</title></head><body>
<h1>Оплата</h1><p>${escapeHtml(p.Description)}</p><p>Сумма: <strong>${escapeHtml((p.Amount / 100).toFixed(2).replace('.', ','))}&nbsp;₽</strong></p>
<form method="post"><input type="hidden" name="action" value="pay"><button type="submit">Оплатить</button></form>
<form method="post"><input type="hidden" name="action" value="reject"><button type="submit">Отменить</button></form>
</body></html>`,
    );
  }
}
