import { z } from 'zod';

/**
 * Every `code` the site's API sends with an error, and what it means. Clients branch on the code,
 * never on the Russian text (which may be reworded); a code the server sends must be listed here
 * (the server's HttpError accepts only these, and its tests fail on any other code seen at run
 * time). The game launcher protocols under /api/yggdrasil and /api/gravit answer in their own
 * shapes (authlib-injector's `{ error, errorMessage }`, GravitLauncher's numeric `code`) and are
 * not part of this list.
 */
export const ERROR_CODE_MEANINGS = {
  // By HTTP status, when the thrower names no code of its own (server lib/errors.ts).
  bad_request: 'The request could not be read (a broken URL, form or body)',
  unauthorized: 'Not logged in',
  forbidden: 'Logged in, but not allowed to do this',
  not_found: 'No such thing (or no such API address)',
  conflict: 'The current state does not allow this',
  too_large: 'The request body is over the size limit',
  uri_too_long: 'The address (a path parameter) is too long',
  unsupported_media_type: 'The body has a content type the route does not take',
  rate_limited: 'Too many tries; the text says how long to wait (`retry_after` seconds and the Retry-After header say it too)',
  passwords_busy:
    'Too many password checks waiting at once: a login from an unknown device was refused without looking at it; repeat after Retry-After seconds',
  internal: 'Server fault; nothing was changed on purpose, try again later',

  // Request shape and transport.
  invalid: 'A value fails its schema; `field` names it when one field is at fault',
  invalid_json: 'The body is not valid JSON',
  invalid_text: 'A text holds a NUL byte or broken Unicode',
  cross_site: 'A state-changing request from another site was refused',
  shutting_down: 'The site is restarting; repeat in a few seconds',
  db_unavailable:
    'This instance cannot reach its database right now (503 with Retry-After); repeat in a few seconds, another instance may answer',
  not_ready: 'Readiness probe (/readyz): the database, migrations or notifications are not ready',

  // Sessions and login.
  invalid_token: 'The session or bearer token sent is no longer valid: log in again',
  bad_credentials: 'Wrong username or password',
  email_not_confirmed: 'Login refused until the address is confirmed from the letter',
  banned: 'The account is banned; `ban` carries reason and end',
  two_factor_required: 'The account has two-factor login on: send the code too (`two_factor_required: true`)',
  bad_two_factor_code: 'The two-factor code is wrong or was used already',
  two_factor_enabled: 'Two-factor login is already on',
  two_factor_not_pending: 'No two-factor setup is waiting for its first code',
  two_factor_off: 'Two-factor login is not on for this account',
  two_factor_setup_required: 'Administrators must turn two-factor login on first',
  two_factor_unavailable: 'The server lacks TWO_FACTOR_KEY to store authenticator secrets',
  session_not_found: 'No such session of this account',

  // Social login (modules/social).
  social_unavailable: 'This provider is not set up on the site (its keys are not set)',
  social_bad_signature: 'The provider data failed its signature check (Telegram hash)',
  social_expired: 'The provider login is too old (Telegram auth_date over a day) or from the future',
  social_state_invalid: 'The login through a provider is unknown, used, expired or was started in another browser',
  social_provider_error: 'The provider refused the code or did not answer; start the login again',
  social_already_linked: 'This provider account is linked to another player',
  social_provider_taken: 'The player already has another account of this provider linked',
  social_not_linked: 'The provider is not linked to this account',
  social_last_login: 'Unlinking would leave the account without a way to log in (no password and no other provider)',
  social_pending_invalid: 'No social login waits in this browser (expired or finished)',

  // AuthMe (modules/authme).
  authme_email_required:
    'The password is right and the account came from AuthMe without an e-mail: send one to POST /api/authme/email (with the name and password)',
  authme_name_refused: "The password is right but the in-game name breaks the site's name rules: no account is made, the owner is told",
  authme_not_connected: 'No AuthMe database is connected (Админ-панель → AuthMe, or AUTHME_DATABASE_URL)',
  authme_import_running: 'An AuthMe import or dry run is running already',

  // Accounts.
  email_exists: 'Another account has this e-mail (registration keeps the text `Email already exists`)',
  username_exists: 'Another account has this name (registration keeps the text `Username already exists`)',
  weak_password: 'The password is too short or too easy to guess',
  wrong_password: 'The current password typed to confirm is wrong',
  same_password: 'The new password equals the old one',
  reset_link_invalid: 'The password reset link is wrong, used or expired',
  email_link_invalid: 'The e-mail change (or cancel) link is wrong, used or expired',
  same_email: 'The new address equals the current one',
  no_pending_change: 'No e-mail change is waiting',
  last_admin: 'The last administrator cannot lose the role or be removed',
  user_not_found: 'No player with this name',
  player_not_found: 'No player with this name (cape grants, public profiles)',
  cannot_ban_self: 'An administrator cannot ban themself',
  cannot_ban_admin: 'Administrators cannot be banned',
  not_banned: 'The account is not banned',
  owner_only:
    "Only the owner may do this (roles, owners, other staff members' accounts; settings that reach money or secrets: payment and login keys, bonuses, vote rewards)",
  role_not_found: 'No such staff role',
  role_exists: 'A staff role with this name exists',
  setup_done: 'First-run setup is over: an administrator exists',
  bad_setup_code: 'The one-time setup code is wrong',

  // Uploads: skins, capes, media.
  not_multipart: 'An upload must be a multipart/form-data form',
  bad_form: 'The upload form is broken or has parts it should not',
  no_file: 'The upload form carries no file',
  file_too_large: 'The uploaded file is over its size limit',
  not_png: 'The file is not a PNG',
  animated_png: 'Animated PNGs are not accepted',
  broken_image: 'The image cannot be decoded',
  broken_png: 'The cape PNG cannot be decoded',
  bad_skin_size: 'The skin is not 64×64 or 64×32 (or an HD size of them)',
  bad_size: 'The cape is not 64×32, 22×17 or 46×23 (or a multiple)',
  wrong_type: 'The media file is not PNG, JPEG, WebP or GIF',
  image_too_large: 'The image is too wide or tall, or an animation has too many pixels',
  no_custom_skin: 'The player has no skin of their own to change the model of',
  cape_exists: 'This cape image is uploaded already',
  cape_not_granted: 'The player may not wear this cape',
  already_granted: 'The cape is granted already',
  media_in_use: 'The file is used in pages or news (`used_in` lists them)',
  not_launcher: 'The uploaded file does not match its platform (name ending or first bytes of an .exe, AppImage or .jar)',

  // Shop, tiers, balance.
  insufficient_funds: 'Not enough balance (or a correction would take it below zero)',
  not_on_sale: 'The item is not on sale',
  sold_out: 'The item is sold out',
  not_enough_stock: 'Fewer items left than asked for',
  category_not_found: 'No such shop category',
  category_exists: 'A category with this name exists',
  category_in_use: 'Items still use the category',
  idempotency_key_reused: 'The Idempotency-Key was used for a different purchase',
  idempotency_key_in_flight: 'The purchase with this Idempotency-Key is still being made',
  tier_not_found: 'No such tier',
  not_sold: 'The tier is not sold for roubles',
  period_not_sold: 'The tier is not sold for this many months',
  downgrade: 'A higher tier is running; a lower one cannot be bought until it ends',
  not_holder: 'Only holders of the tier may claim its kit',
  kit_cooldown: 'The kit was claimed recently (`next_claim_at` says when it can be again)',
  kit_in_game: 'The kit is claimed with a command in the game',
  ended: 'The privilege has ended already',
  limit_reached: 'The per-player purchase limit of the item would be passed (the text says how many are left and when)',
  sale_changed: 'The price changed while the cart was open (a sale ended or began): look at the new total',
  promo_not_found: 'No such promo code (or it was switched off)',
  promo_not_active: 'The promo code has not started yet or has ended',
  promo_exhausted: 'The promo code was used its maximum number of times',
  promo_used: 'This player used the promo code as many times as one may',
  promo_not_applicable: 'The promo code does not apply to this purchase (another section, other items, or only to top-ups)',
  promo_min_total: 'The purchase is below the sum the promo code needs',
  promo_code_exists: 'A promo code with this text exists (codes are compared without case)',
  gift_recipient_invalid: 'No player can get a gift under this name (unknown, deleted or banned — not told apart)',
  gift_to_self: 'The gift names the buyer themself',

  // Deliveries and servers.
  server_not_found: 'No such game server',
  server_in_use: 'Shop items or deliveries still use the game server',
  server_not_linked: 'The AzLink plugin is not linked to this game server',
  azlink_no_token: 'An AzLink call without the Azuriom-Link-Token header',
  azlink_bad_token: 'An AzLink call with a token the site does not know',
  azlink_accounts_off: 'Accounts from the game are off for this server',
  azlink_no_account: 'No site account has this game profile UUID',
  azlink_staff_account: 'A staff account cannot be changed from the game',
  azlink_name_taken: 'Another site account has this name',
  azlink_email_taken: 'Another site account has this e-mail address',
  delivery_not_found: 'No such delivery',
  delivery_done: 'The delivery is done already',
  delivery_refunded: 'The delivery was refunded already',
  delivery_in_flight: 'The delivery is being sent right now',
  not_a_purchase: 'Only shop purchases can be refunded this way',

  // Payments.
  provider_off: 'The payment provider is not configured',
  amount_too_small: 'The top-up is below the minimum',
  amount_too_large: 'The top-up is above the maximum',
  provider_failed: 'The payment provider did not answer or refused to create the payment',
  payment_not_found: 'No such payment',
  already_refunded: 'The payment was refunded already',
  not_refundable: 'Only succeeded payments can be refunded',
  refund_in_progress: 'A refund of this payment is under way',
  refund_refused: 'The provider refused the refund; the money is back on the balance',
  refund_unknown: 'The provider did not answer the refund; the balance stays debited and it is retried',
  refund_too_large: 'The refund asks for more than is left of the payment',
  refund_not_supported: 'The provider has no refund through its API (ЮMoney): return the money from its own cabinet',
  too_many_pending: 'The player has too many unpaid top-ups waiting; pay or wait for them to expire',
  zero_amount: 'A money amount rounds to zero kopecks',
  unknown_provider: 'No such payment provider',

  // Votes and referrals.
  vote_site_not_found: 'No such vote top (or it is switched off)',
  vote_bad_signature: 'A vote callback whose signature (or bearer secret) does not match the top’s secret',
  vote_stale: 'A vote callback whose time is too far from now (an old callback replayed)',

  // Support tickets and ban appeals (modules/support).
  ticket_not_found: 'No such ticket, or it is not yours (a player never learns whether another player’s ticket exists)',
  ticket_closed: 'The ticket is closed: no more replies (staff may reopen it)',
  too_many_open_tickets: 'The player has as many open tickets as one may; close one or wait for an answer',
  support_category_not_found: 'No such support category (or it is switched off)',
  support_link_not_found: 'The order, delivery or top-up named is not the player’s own',
  attachment_not_found: 'No such attachment, or not one the caller may read or attach',
  not_support_staff: 'The staff member named does not hold the `support` permission',
  appeal_link_invalid: 'The appeal link is made up, altered or expired: log in with the password again for a fresh one',
  appeal_ban_over: 'The ban the appeal link names is no longer in force',
  appeal_exists: 'The ban is appealed already (`id` names the appeal)',

  // Pages.
  page_builtin: 'A built-in page cannot be removed (its text can be changed)',

  // Notices (the bell) and the live event stream.
  too_many_streams: 'The account has too many open event streams (tabs) on this server; close one',
  notice_user_not_found: 'No such player to send the notice to',

  // Subscriptions (modules/subscriptions) and guest purchases.
  not_offered: 'The tier is not offered by subscription (or not sold in roubles)',
  already_subscribed: 'The player already has a live subscription to this tier',
  subscription_not_found: 'No such subscription, or it is not the player’s own',
  guest_purchases_off: 'Buying without an account is switched off by the owner',
  nickname_holds:
    'The nickname, without an account, already holds a tier bought by a guest; it is extended or changed once the player registers',
  // The seller's legal side: consent and 54-ФЗ receipts.
  consent_required:
    'A published document (the offer, the personal-data policy) or the adult-or-parental-consent confirmation must be accepted first; `field` is consents',
  fiscal_item_not_found: 'No such shop item or donate tier',
  receipt_not_found: 'No such receipt',
  receipt_not_resendable: 'Only a canceled (failed) receipt can be sent again',
  receipt_email_required:
    'The account has no real e-mail (it came from the game without one) and the payment needs a 54-ФЗ receipt: the player sets an address in the profile first',
} as const satisfies Record<string, string>;

export type ErrorCode = keyof typeof ERROR_CODE_MEANINGS;

/** Every code, in the order above. */
export const ERROR_CODES = /* @__PURE__ */ Object.keys(ERROR_CODE_MEANINGS) as [ErrorCode, ...ErrorCode[]];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODE_MEANINGS, value);
}

function describeCodes(): string {
  return `Машинный код ошибки:\n${Object.entries(ERROR_CODE_MEANINGS)
    .map(([code, meaning]) => `- \`${code}\`: ${meaning}`)
    .join('\n')}`;
}

/**
 * One schema component in the OpenAPI document (`#/components/schemas/ErrorCode`), with the
 * meanings, referred to by every error answer. Pure: a bundle that does not use it (the web) drops
 * it and the meanings.
 */
export const ErrorCodeSchema = /* @__PURE__ */ z.enum(ERROR_CODES).meta({ id: 'ErrorCode', description: /* @__PURE__ */ describeCodes() });

/**
 * Every error the API returns has this shape: `error` is the Russian text the client shows,
 * `code` one of ErrorCode to branch on (e.g. `email_exists`, `invalid`), `field` the body or
 * query path at fault in dot form (`kits.0.name`). Routes may add fields (kept, not stripped).
 */
export const ErrorResponse = /* @__PURE__ */ z.looseObject({ error: z.string(), code: ErrorCodeSchema, field: z.string().optional() });
export type ErrorResponse = z.infer<typeof ErrorResponse>;
