import { z } from 'zod';
import { withLabels } from './common.ts';

// The delivery queue: everything that goes into the game (shop purchases, privileges, kits, bans)
// is a row of one queue, sent over RCON by one worker.

/**
 * pending: waits to be sent (or for the server / the player to be reachable); sent: the command
 * is out, no answer yet; done: the server answered; failed: the server refused it; unknown: the
 * answer never came (it may have run, so it is not resent automatically); refunded: money returned.
 */
export const DELIVERY_STATES = ['pending', 'sent', 'done', 'failed', 'unknown', 'refunded'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export const DELIVERY_STATE_TEXT: Record<DeliveryState, string> = {
  pending: 'Ожидает выдачи',
  sent: 'Выдаётся',
  done: 'Выдано',
  failed: 'Ошибка выдачи',
  unknown: 'Не подтверждено',
  refunded: 'Деньги возвращены',
};

/** Where a delivery comes from. */
export const DELIVERY_SOURCES = ['shop', 'privilege_grant', 'privilege_revoke', 'kit', 'ban', 'unban', 'vote', 'guest'] as const;
export type DeliverySource = (typeof DELIVERY_SOURCES)[number];

export const DELIVERY_SOURCE_TEXT: Record<DeliverySource, string> = {
  shop: 'Магазин',
  privilege_grant: 'Привилегия',
  privilege_revoke: 'Конец привилегии',
  kit: 'Набор',
  ban: 'Бан',
  unban: 'Разбан',
  vote: 'Награда за голос',
  guest: 'Покупка без аккаунта',
};

/** What a player is to receive, in «чтобы получить …». */
const SOURCE_OBJECT: Record<DeliverySource, string> = {
  shop: 'покупку',
  privilege_grant: 'привилегию',
  privilege_revoke: 'изменения',
  kit: 'набор',
  ban: 'изменения',
  unban: 'изменения',
  vote: 'награду за голос',
  guest: 'покупку',
};

/**
 * Why a pending delivery waits: player_offline — the server answered that the player is not in
 * the game; server_down — the server could not be reached (or refused the RCON password);
 * no_server — no server to send to (none chosen, none with RCON, or it was deleted).
 */
export const DELIVERY_WAITING = ['player_offline', 'server_down', 'no_server'] as const;
export type DeliveryWaiting = (typeof DELIVERY_WAITING)[number];

/** What the player reads about a waiting delivery; null when it does not wait for anything in particular. */
export function waitingText(waiting: DeliveryWaiting | null, serverName: string | null, source: DeliverySource = 'shop'): string | null {
  if (waiting === 'player_offline') return `Зайдите на сервер «${serverName ?? 'игры'}», чтобы получить ${SOURCE_OBJECT[source]}`;
  if (waiting === 'server_down' || waiting === 'no_server') return 'Сервер временно недоступен, выдадим автоматически';
  return null;
}

/**
 * What a card (a privilege, a kit claim, an order) says about the things it put into the game, in
 * one word, from its deliveries: sending — on its way; waiting_player — the player must join the
 * server; server_down — the server cannot be reached (or none to send to); done — given;
 * failed — the server refused it or never confirmed it (the admin sees it in «Выдача в игре»);
 * refunded — the money went back instead.
 */
export const DELIVERY_STATUS_STATES = ['sending', 'waiting_player', 'server_down', 'done', 'failed', 'refunded'] as const;
export type DeliveryStatusState = (typeof DELIVERY_STATUS_STATES)[number];

export const DeliveryStatus = z.object({
  state: z.enum(DELIVERY_STATUS_STATES),
  /** The sentence the player acts on («Зайдите на сервер «Выживание», чтобы получить привилегию»); null when there is none. */
  reason: z.string().nullable(),
  /** The headline: «Выдаётся», «Ждёт: зайдите на сервер «Выживание»», «Сервер недоступен», «Выдано», «Ошибка выдачи — администратор уже видит её». */
  text: z.string(),
});
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;

const STATUS_RANK: Record<DeliveryStatusState, number> = { failed: 5, server_down: 4, waiting_player: 3, sending: 2, done: 1, refunded: 0 };

/**
 * One status of several deliveries (a purchase given on every server, an order in several
 * stacks): the one that needs attention most wins — a failure, then a server down, a player to
 * join, a delivery on its way; «Выдано» only when all of them were given. null: nothing to deliver.
 */
export function deliveryStatus(
  list: readonly { state: DeliveryState; waiting: DeliveryWaiting | null; server_name: string | null; source: DeliverySource }[],
): DeliveryStatus | null {
  let worst: { state: DeliveryStatusState; d: (typeof list)[number] } | null = null;
  for (const d of list) {
    const state: DeliveryStatusState =
      d.state === 'failed' || d.state === 'unknown'
        ? 'failed'
        : d.state === 'done'
          ? 'done'
          : d.state === 'refunded'
            ? 'refunded'
            : d.state === 'pending' && (d.waiting === 'server_down' || d.waiting === 'no_server')
              ? 'server_down'
              : d.state === 'pending' && d.waiting === 'player_offline'
                ? 'waiting_player'
                : 'sending';
    if (!worst || STATUS_RANK[state] > STATUS_RANK[worst.state]) worst = { state, d };
  }
  if (!worst) return null;
  const { state, d } = worst;
  const server = d.server_name ?? 'игры';
  switch (state) {
    case 'failed':
      return {
        state,
        text: 'Ошибка выдачи — администратор уже видит её',
        reason:
          d.state === 'unknown'
            ? 'Сервер не подтвердил выдачу. Администратор проверит и выдаст её снова.'
            : 'Сервер отказал в выдаче. Администратор проверит и выдаст её снова.',
      };
    case 'server_down':
      return { state, text: 'Сервер недоступен', reason: waitingText('server_down', d.server_name, d.source) };
    case 'waiting_player':
      return { state, text: `Ждёт: зайдите на сервер «${server}»`, reason: waitingText('player_offline', d.server_name, d.source) };
    case 'sending':
      return { state, text: 'Выдаётся', reason: null };
    case 'done':
      return { state, text: 'Выдано', reason: null };
    case 'refunded':
      return { state, text: 'Деньги возвращены', reason: null };
  }
}

/** A delivery as its player sees it (in the shop's orders and in the profile). */
export const PlayerDelivery = z.object({
  id: z.number(),
  source: z.enum(DELIVERY_SOURCES),
  source_id: z.number().nullable(),
  label: z.string(),
  /** Units of the source this delivery carries (the shop: pieces bought); null for other sources. */
  quantity: z.number().nullable(),
  server_name: z.string().nullable(),
  state: z.enum(DELIVERY_STATES),
  waiting: z.enum(DELIVERY_WAITING).nullable(),
  /** «Зайдите на сервер «…», чтобы получить покупку» and the like; null when there is nothing to say. */
  waiting_text: z.string().nullable(),
  created_at: z.number(),
  updated_at: z.number(),
});
export type PlayerDelivery = z.infer<typeof PlayerDelivery>;

export const AdminDelivery = z.object({
  id: z.number(),
  source: z.enum(DELIVERY_SOURCES),
  source_id: z.number().nullable(),
  /** The shop order, for shop deliveries. */
  order_id: z.number().nullable(),
  user_id: z.number().nullable(),
  username: z.string().nullable(),
  label: z.string(),
  /** Shop deliveries: the item's name and Minecraft ID at the time of purchase. */
  item_name: z.string().nullable(),
  item_id_minecraft: z.string().nullable(),
  quantity: z.number().nullable(),
  /** Roubles this delivery is worth (what a refund returns); null when it cannot be refunded here. */
  amount: z.number().nullable(),
  server_id: z.number().nullable(),
  server_name: z.string().nullable(),
  /** 'server': the given server; 'only': the only server with RCON; 'all': every server with RCON. */
  server_scope: z.enum(['server', 'only', 'all']),
  state: z.enum(DELIVERY_STATES),
  waiting: z.enum(DELIVERY_WAITING).nullable(),
  /** Commands this delivery runs (its own, or the server's template when null), the next one to run, and how many. */
  commands: z.array(z.string()).nullable(),
  step: z.number(),
  steps: z.number(),
  attempts: z.number(),
  command: z.string().nullable(),
  reply: z.string().nullable(),
  last_error: z.string().nullable(),
  next_attempt_at: z.number(),
  /** When the last command was sent (the last try); null: never tried. */
  last_attempt_at: z.number().nullable(),
  /** When the server confirmed the last command (given); null: not given (yet). */
  done_at: z.number().nullable(),
  /**
   * When it was handed to the AzLink plugin («Передано плагину»): the plugin never confirms, so
   * «Выдать повторно» stays open; null for RCON deliveries.
   */
  handed_to_plugin_at: z.number().nullable(),
  /** When it was queued: bought, claimed or granted. */
  created_at: z.number(),
  updated_at: z.number(),
});
export type AdminDelivery = z.infer<typeof AdminDelivery>;

export const DeliveriesQuery = withLabels(
  z.strictObject({
    state: z.enum(DELIVERY_STATES, { error: 'Некорректное состояние доставки' }).optional(),
    source: z.enum(DELIVERY_SOURCES, { error: 'Некорректный источник доставки' }).optional(),
    limit: z.coerce
      .number({ error: 'Некорректный лимит' })
      .int('Некорректный лимит')
      .min(1, 'Некорректный лимит')
      .max(500, 'Некорректный лимит')
      .optional(),
  }),
  { state: 'Состояние', source: 'Источник', limit: 'Лимит' },
);

/** Resend, optionally to another server (when the delivery's server was deleted, say). */
export const ResendBody = z
  .union([
    withLabels(
      z.strictObject({
        server_id: z
          .number({ error: 'Некорректный сервер' })
          .int('Некорректный сервер')
          .positive('Некорректный сервер')
          .max(2_147_483_647, 'Некорректный сервер')
          .optional(),
      }),
      { server_id: 'Сервер' },
    ),
    z.null(),
  ])
  .optional();

export const DeliveryActionResponse = z.object({ message: z.string(), delivery: AdminDelivery, new_balance: z.number().optional() });
export type DeliveryActionResponse = z.infer<typeof DeliveryActionResponse>;

export const PlayerDeliveriesResponse = z.object({ deliveries: z.array(PlayerDelivery) });
export type PlayerDeliveriesResponse = z.infer<typeof PlayerDeliveriesResponse>;
