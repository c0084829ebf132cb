// How the admin area's audit log reads in Russian. The server records an `action`
// ('shop.item.create'), an `entity` ('shop_item') and the record before and after with the API's
// or the table's own field names; these tables turn them into «Товар создан» and
// «Цена: 10 ₽ → 12,50 ₽». A feature that records a new action, entity or field adds its words
// here; anything not listed still reads as Russian (see auditAction and auditField), never as a
// raw key. (The audit log's coverage test, apps/server/src/modules/audit/audit-labels.test.ts,
// makes the changes the admin area can make and finds every field here by name.)

import { LAUNCHER_PLATFORM_INFO } from './launcher.ts';
import { PAYMENT_PROVIDER_TEXT } from './payments.ts';
import { LIMIT_PERIOD_TEXT, PROMO_KIND_TEXT, PROMO_SCOPE_TEXT } from './storefront.ts';
import { VOTE_KIND_TEXT } from './votes.ts';

/** How a field's value is shown. */
export type AuditValueKind =
  | 'text'
  | 'number'
  /** Roubles, as the API speaks them. */
  | 'roubles'
  /** Integer kopecks, as the database keeps them. */
  | 'kopecks'
  | 'boolean'
  /** Epoch milliseconds or an ISO date. */
  | 'datetime'
  /** A list of records, shown by their names. */
  | 'list'
  /** Masked by the server ('***'): only whether it is set. */
  | 'secret'
  | 'delivery_state'
  /** The owner's top-up bonus rules: «от 1 000 ₽ — +10 %». */
  | 'bonus_rules'
  /** A receipt's VAT code (1…6), shown as its rate: «Без НДС». */
  | 'vat_code'
  /** Roubles, one per place: «1 000 ₽, 500 ₽». */
  | 'roubles_list'
  /** A tier's periods: «1 мес., 3 мес. (−10 %)». */
  | 'periods'
  | 'percent'
  /** A value from a fixed set, by its Russian name (AUDIT_VALUE_TEXT). */
  | 'promo_kind'
  | 'promo_scope'
  | 'limit_period'
  | 'vote_kind'
  | 'launcher_kind'
  | 'server_scope'
  | 'end_reason';

/** The Russian names of the values of the fixed sets above. */
export const AUDIT_VALUE_TEXT: Partial<Record<AuditValueKind, Record<string, string>>> = {
  promo_kind: PROMO_KIND_TEXT,
  promo_scope: PROMO_SCOPE_TEXT,
  limit_period: LIMIT_PERIOD_TEXT,
  vote_kind: VOTE_KIND_TEXT,
  launcher_kind: { file: 'файл на сайте', link: 'ссылка', hidden: 'скрыт' },
  server_scope: { server: 'выбранный сервер', only: 'единственный сервер с RCON', all: 'все серверы с RCON' },
  end_reason: { expired: 'срок закончился', upgraded: 'заменена более высокой', revoked: 'снята администратором' },
};

export interface AuditFieldLabel {
  label: string;
  kind?: AuditValueKind;
}

/** Each recorded action as a sentence. */
export const AUDIT_ACTION_LABELS: Record<string, string> = {
  'user.create': 'Пользователь добавлен',
  'user.update': 'Пользователь изменён',
  'user.delete': 'Пользователь удалён',
  'vote_site.create': 'Топ для голосования добавлен',
  'vote_site.update': 'Топ для голосования изменён',
  'vote_site.disable': 'Топ для голосования выключен',
  'news.create': 'Новость добавлена',
  'news.update': 'Новость изменена',
  'news.delete': 'Новость удалена',
  'donate.create': 'Донат добавлен',
  'donate.update': 'Донат изменён',
  'donate.delete': 'Донат удалён',
  'shop.item.create': 'Товар создан',
  'shop.item.update': 'Товар изменён',
  'shop.item.delete': 'Товар удалён',
  'shop.delivery.resend': 'Выдача отправлена ещё раз',
  'shop.delivery.refund': 'Деньги за выдачу возвращены',
  'delivery.resend': 'Выдача отправлена ещё раз',
  'delivery.refund': 'Деньги за выдачу возвращены',
  'shop.category.create': 'Категория товаров добавлена',
  'shop.category.update': 'Категория товаров изменена',
  'shop.category.delete': 'Категория товаров удалена',
  'promo.create': 'Промокод добавлен',
  'promo.update': 'Промокод изменён',
  'promo.disable': 'Промокод выключен',
  'promo.enable': 'Промокод включён',
  'server.create': 'Сервер добавлен',
  'server.update': 'Сервер изменён',
  'server.delete': 'Сервер удалён',
  'server.link': 'Плагин AzLink подключён',
  'server.unlink': 'Плагин AzLink отключён',
  'server.link_settings': 'Настройки плагина AzLink изменены',
  'server.link_accounts': 'Аккаунты из игры через AzLink включены или выключены',
  'user.game_register': 'Аккаунт создан регистрацией в игре (AzLink)',
  'user.game_password': 'Пароль изменён в игре (AzLink)',
  'user.game_email': 'Почта изменена в игре (AzLink)',
  'cape.create': 'Плащ загружен',
  'cape.update': 'Плащ переименован',
  'cape.delete': 'Плащ удалён',
  'cape.grant': 'Плащ выдан',
  'cape.revoke': 'Выдача плаща отменена',
  'media.upload': 'Картинка загружена',
  'media.delete': 'Картинка удалена',
  'launcher.upload': 'Файл лаунчера загружен',
  'launcher.link': 'Ссылка на лаунчер сохранена',
  'launcher.hide': 'Лаунчер для системы скрыт',
  'launcher.reset': 'Лаунчер для системы: снова по настройкам',
  'user.balance': 'Баланс изменён',
  'privilege.grant': 'Привилегия выдана вручную',
  'privilege.update': 'Срок привилегии изменён',
  'privilege.revoke': 'Привилегия снята',
  'settings.update': 'Настройки изменены',
  'page.update': 'Страница сохранена',
  'page.delete': 'Страница удалена',
  'user.ban': 'Игрок заблокирован',
  'user.ban.update': 'Блокировка изменена',
  'user.unban': 'Блокировка снята',
  'user.2fa_reset': 'Двухфакторная защита игрока сброшена',
  'server.ban_commands': 'Команды бана на сервере изменены',
  'user.email.change': 'Почта изменена игроком',
  'user.email.revert': 'Смена почты отменена со старого адреса',
  'user.delete.self': 'Игрок удалил свой аккаунт',
  'payment.refund': 'Возврат платежа: сумма списана с баланса',
  'payment.refund_failed': 'Возврат платежа не удался: деньги вернулись на баланс',
  'role.create': 'Роль сотрудников создана',
  'role.update': 'Роль сотрудников изменена',
  'role.delete': 'Роль сотрудников удалена',
  'user.role': 'Роль сотрудника назначена',
  'setup.done': 'Сайт настроен при первом запуске',
  'payment.provider': 'Способ оплаты настроен',
  'notice.send': 'Игроку отправлено сообщение от администрации',
  'notice.broadcast': 'Всем игрокам отправлено сообщение от администрации',
  'support.category.create': 'Категория обращений добавлена',
  'support.category.update': 'Категория обращений изменена',
  'support.category.delete': 'Категория обращений удалена',
  'support.canned.create': 'Шаблон ответа добавлен',
  'support.canned.update': 'Шаблон ответа изменён',
  'support.canned.delete': 'Шаблон ответа удалён',
  'fiscal.item': 'Ставка НДС и предмет расчёта изменены',
  'legal.publish': 'Опубликована новая редакция документа',
  'receipt.resend': 'Чек отправлен заново',
};

/** The log's sections (its filter), by the entity the server records. */
export const AUDIT_ENTITY_LABELS: Record<string, string> = {
  user: 'Пользователи',
  news: 'Новости',
  donate: 'Донат',
  shop_item: 'Товары',
  delivery: 'Выдача в игре',
  shop_category: 'Категории товаров',
  promo_code: 'Промокоды',
  server: 'Серверы',
  cape: 'Плащи',
  media: 'Картинки',
  launcher: 'Лаунчер',
  privilege: 'Привилегии',
  settings: 'Настройки',
  page: 'Страницы',
  payment: 'Платежи',
  vote_site: 'Голосование',
  role: 'Роли сотрудников',
  notice: 'Сообщения игрокам',
  support_category: 'Категории обращений',
  support_canned: 'Шаблоны ответов',
  legal: 'Документы',
};

/**
 * Entities recorded once under another name, read as a section of today's: the shop's deliveries
 * (`shop_delivery`) before every delivery became one queue (`delivery`). The filter shows each
 * section once and asks for all of its entities.
 */
export const AUDIT_ENTITY_ALIASES: Record<string, readonly string[]> = { delivery: ['shop_delivery'] };

/** The entities a section of the filter covers: its own and those recorded under an old name. */
export const auditSectionEntities = (section: string): string[] => [section, ...(AUDIT_ENTITY_ALIASES[section] ?? [])];

/** Field names, the same in every entity unless AUDIT_ENTITY_FIELD_LABELS says otherwise. */
export const AUDIT_FIELD_LABELS: Record<string, AuditFieldLabel> = {
  username: { label: 'Имя' },
  email: { label: 'Почта' },
  password: { label: 'Пароль' },
  is_admin: { label: 'Администратор', kind: 'boolean' },
  two_factor: { label: 'Двухфакторная защита', kind: 'boolean' },
  balance: { label: 'Баланс', kind: 'roubles' },
  deleted: { label: 'Удалён', kind: 'boolean' },
  title: { label: 'Заголовок' },
  // Per item and tier: its receipt line (Продавец и чеки).
  vat_code: { label: 'Ставка НДС', kind: 'vat_code' },
  payment_subject: { label: 'Предмет расчёта' },
  receipt: { label: 'Чек', kind: 'number' },
  body: { label: 'Текст сообщения' },
  sent: { label: 'Получателей', kind: 'number' },
  name: { label: 'Название' },
  description: { label: 'Описание' },
  content: { label: 'Текст' },
  image_url: { label: 'Изображение' },
  amount: { label: 'Цена', kind: 'number' },
  currency: { label: 'Валюта' },
  is_best: { label: 'Лучший выбор', kind: 'boolean' },
  position: { label: 'Порядок', kind: 'number' },
  kits: { label: 'Киты', kind: 'list' },
  features: { label: 'Привилегии', kind: 'list' },
  price: { label: 'Цена', kind: 'roubles' },
  count: { label: 'Количество', kind: 'number' },
  icon: { label: 'Иконка' },
  category: { label: 'Категория' },
  item_id_minecraft: { label: 'Minecraft ID' },
  status: { label: 'Статус' },
  server_id: { label: 'Сервер выдачи (№)', kind: 'number' },
  ip_address: { label: 'IP-адрес или домен' },
  port: { label: 'Порт', kind: 'number' },
  max_online: { label: 'Максимальный онлайн', kind: 'number' },
  rcon_host: { label: 'Адрес RCON' },
  rcon_port: { label: 'Порт RCON', kind: 'number' },
  rcon_password: { label: 'Пароль RCON', kind: 'secret' },
  // Named without «password», which the audit log masks: when a change of the RCON address dropped it.
  rcon_key_dropped_at: { label: 'Пароль RCON удалён при смене адреса RCON', kind: 'datetime' },
  command_template: { label: 'Шаблон команды выдачи' },
  plugin_linked: { label: 'Плагин AzLink подключён', kind: 'boolean' },
  delivery_channel: { label: 'Способ выдачи' },
  instant_ping: { label: 'Мгновенная выдача через плагин', kind: 'boolean' },
  ping_port: { label: 'Порт плагина для мгновенной выдачи', kind: 'number' },
  game_accounts: { label: 'Аккаунты из игры через AzLink', kind: 'boolean' },
  state: { label: 'Состояние', kind: 'delivery_state' },
  pieces: { label: 'Штук за покупку', kind: 'number' },
  commands: { label: 'Свои команды', kind: 'list' },
  server_scope: { label: 'Куда выдавать' },
  attempts: { label: 'Отправлено команд', kind: 'number' },
  reply: { label: 'Ответ сервера' },
  last_error: { label: 'Причина' },
  amount_kopecks: { label: 'Сумма', kind: 'kopecks' },
  created_at: { label: 'Создано', kind: 'datetime' },
  updated_at: { label: 'Изменено', kind: 'datetime' },
  deleted_at: { label: 'Удалено', kind: 'datetime' },
  width: { label: 'Ширина', kind: 'number' },
  height: { label: 'Высота', kind: 'number' },
  player: { label: 'Игрок' },
  tier: { label: 'Донат' },
  server_name: { label: 'Название в лаунчере' },
  help_text: { label: 'Текст на странице помощи' },
  url: { label: 'Адрес' },
  size: { label: 'Размер, байт', kind: 'number' },
  comment: { label: 'Комментарий' },
  change: { label: 'Изменение', kind: 'roubles' },
  server_ids: { label: 'Серверы (№)', kind: 'list' },
  grant_commands: { label: 'Команды выдачи', kind: 'list' },
  revoke_commands: { label: 'Команды снятия', kind: 'list' },
  periods: { label: 'Сроки покупки', kind: 'periods' },
  give_commands: { label: 'Команды выдачи кита', kind: 'list' },
  starts_at: { label: 'Начало', kind: 'datetime' },
  expires_at: { label: 'Окончание', kind: 'datetime' },
  ended_at: { label: 'Закончилась', kind: 'datetime' },
  end_reason: { label: 'Причина окончания' },
  tier_id: { label: 'Донат (№)', kind: 'number' },
  tier_title: { label: 'Донат' },
  user_id: { label: 'Игрок (№)', kind: 'number' },
  days: { label: 'Дней', kind: 'number' },
  granted_by: { label: 'Выдал (№)', kind: 'number' },
  reminded_at: { label: 'Напоминание отправлено', kind: 'datetime' },
  reason: { label: 'Причина' },
  note: { label: 'Внутренняя заметка' },
  term: { label: 'Срок' },
  lift_reason: { label: 'Почему снята' },
  ban_command: { label: 'Команда бана' },
  unban_command: { label: 'Команда разбана' },
  permissions: { label: 'Права', kind: 'list' },
  role: { label: 'Роль' },
  members: { label: 'Сотрудников с ролью', kind: 'number' },
  enabled: { label: 'Включено', kind: 'boolean' },
  disabled: { label: 'Выключен', kind: 'boolean' },
  link: { label: 'Ссылка' },
  // A tier (Донат): its sale, whether it is sold, its periods.
  sellable: { label: 'Продаётся за рубли', kind: 'boolean' },
  sale_amount: { label: 'Цена по акции', kind: 'roubles' },
  sale_price: { label: 'Цена по акции', kind: 'roubles' },
  sale_ends_at: { label: 'Акция до', kind: 'datetime' },
  sale_percent: { label: 'Скидка по акции, %', kind: 'percent' },
  // A shop item's limit and stock.
  limit_per_player: { label: 'Лимит на игрока, покупок', kind: 'number' },
  limit_period: { label: 'Период лимита', kind: 'limit_period' },
  unlimited: { label: 'Количество без ограничения', kind: 'boolean' },
  // A promo code.
  code: { label: 'Код' },
  kind: { label: 'Вид' },
  value: { label: 'Значение', kind: 'number' },
  applies_to: { label: 'Применяется к', kind: 'promo_scope' },
  item_ids: { label: 'Только товары (№)', kind: 'list' },
  max_uses: { label: 'Всего использований', kind: 'number' },
  per_player: { label: 'Раз на игрока', kind: 'number' },
  min_total: { label: 'Минимальная сумма', kind: 'roubles' },
  uses: { label: 'Использовано', kind: 'number' },
  disabled_at: { label: 'Выключен', kind: 'datetime' },
  // A vote top.
  secret: { label: 'Секретный ключ', kind: 'secret' },
  reward_amount: { label: 'Награда на баланс', kind: 'roubles' },
  reward_commands: { label: 'Команды награды', kind: 'list' },
  cooldown_hours: { label: 'Голосовать не чаще, часов', kind: 'number' },
};

/** Where a field means something else in one entity. */
export const AUDIT_ENTITY_FIELD_LABELS: Record<string, Record<string, AuditFieldLabel>> = {
  news: { content: { label: 'Содержание' } },
  // A ban's two texts: what the player and everyone see, and the staff's own note.
  user: { reason: { label: 'Причина для игрока' } },
  // A promo code's row as stored: money in kopecks; its value a percent or kopecks by its kind (auditField).
  promo_code: {
    kind: { label: 'Вид', kind: 'promo_kind' },
    min_total: { label: 'Минимальная сумма', kind: 'kopecks' },
    starts_at: { label: 'Действует с', kind: 'datetime' },
    ends_at: { label: 'Действует до', kind: 'datetime' },
  },
  // The shop's category row.
  shop_category: { position: { label: 'Порядок в магазине', kind: 'number' } },
  vote_site: { kind: { label: 'Топ', kind: 'vote_kind' }, title: { label: 'Название' }, url: { label: 'Адрес страницы топа' } },
  delivery: { server_scope: { label: 'Куда выдавать', kind: 'server_scope' } },
  donate: {
    content: { label: 'Описание' },
    amount: { label: 'Цена в месяц', kind: 'number' },
    subscription: { label: 'По подписке', kind: 'boolean' },
    subscription_months: { label: 'Месяцев за списание', kind: 'number' },
  },
  // The item's row as stored: the price in kopecks.
  shop_item: {
    price: { label: 'Цена', kind: 'kopecks' },
    sale_price: { label: 'Цена по акции', kind: 'kopecks' },
    commands: { label: 'Свои команды', kind: 'list' },
  },
  cape: { title: { label: 'Название' } },
  media: { name: { label: 'Имя файла' } },
  launcher: {
    kind: { label: 'Как раздаётся', kind: 'launcher_kind' },
    platform: { label: 'Система' },
    version: { label: 'Версия' },
    url: { label: 'Ссылка' },
    file_name: { label: 'Файл' },
    size: { label: 'Размер, байт', kind: 'number' },
    sha256: { label: 'SHA-256' },
  },
  privilege: { title: { label: 'Донат' }, end_reason: { label: 'Причина окончания', kind: 'end_reason' } },
  // The site settings (Админ-панель → Настройки); other settings documents share the entity.
  settings: {
    name: { label: 'Название сайта' },
    description: { label: 'Краткое описание' },
    logo_url: { label: 'Логотип' },
    favicon_url: { label: 'Значок вкладки' },
    accent_color: { label: 'Цвет акцента' },
    game_address: { label: 'Адрес сервера' },
    home_banner_url: { label: 'Баннер на главной' },
    home_banner_title: { label: 'Заголовок баннера' },
    home_banner_text: { label: 'Текст баннера' },
    home_banner_link: { label: 'Ссылка баннера' },
    support_vk: { label: 'ВКонтакте' },
    support_telegram: { label: 'Telegram' },
    support_discord: { label: 'Discord' },
    support_email: { label: 'Почта поддержки' },
    launcher_version: { label: 'Версия лаунчера' },
    launcher_windows_url: { label: 'Лаунчер для Windows' },
    launcher_linux_url: { label: 'Лаунчер для Linux' },
    footer_text: { label: 'Текст в подвале' },
    legal_seller: { label: 'Продавец' },
    legal_inn: { label: 'ИНН' },
    legal_ogrn: { label: 'ОГРН / ОГРНИП' },
    seo_description: { label: 'Описание для поисковиков' },
    // The payments document (Админ-панель → Платежи → Бонусы).
    vat_code: { label: 'Ставка НДС в чеке', kind: 'vat_code' },
    bonus_rules: { label: 'Бонусы к пополнению', kind: 'bonus_rules' },
    // Продавец и чеки (settings document `fiscal`).
    legal_form: { label: 'Форма продавца' },
    inn: { label: 'ИНН' },
    ogrn: { label: 'ОГРН / ОГРНИП' },
    tax_system_code: { label: 'Система налогообложения', kind: 'number' },
    phone: { label: 'Телефон продавца' },
    address: { label: 'Адрес продавца' },
    age_mark: { label: 'Возрастная маркировка' },
    // Админ-панель → Безопасность (settings document `security`).
    require_admin_two_factor: { label: 'Двухфакторная защита для администраторов', kind: 'boolean' },
    // The home page's widgets (settings document `home`).
    recent_purchases: { label: 'Последние покупки на главной', kind: 'boolean' },
    top_donors: { label: 'Топ месяца на главной', kind: 'boolean' },
    // Голосование → призы месяца (settings document `vote_prizes`).
    prizes: { label: 'Призы за места', kind: 'roubles_list' },
    // Рефералы (settings document `referrals`).
    share_percent: { label: 'Доля от пополнений, %', kind: 'percent' },
    share_days: { label: 'Сколько дней платить долю', kind: 'number' },
    bonus_amount: { label: 'Бонус за первое пополнение', kind: 'roubles' },
    bonus_min_topup: { label: 'Первое пополнение от', kind: 'roubles' },
    hold_days: { label: 'Выдержка награды, дней', kind: 'number' },
    // Вход через соцсети (settings document `social`); keys are stored sealed, shown only as set or not.
    vk_client_id: { label: 'ВКонтакте: ID приложения' },
    vk_client_secret_sealed: { label: 'ВКонтакте: защищённый ключ', kind: 'secret' },
    vk_base_url: { label: 'ВКонтакте: адрес сервиса' },
    telegram_bot_name: { label: 'Telegram: имя бота' },
    telegram_bot_token_sealed: { label: 'Telegram: токен бота', kind: 'secret' },
    telegram_base_url: { label: 'Telegram: адрес сервиса' },
    discord_client_id: { label: 'Discord: ID приложения' },
    discord_client_secret_sealed: { label: 'Discord: секрет приложения', kind: 'secret' },
    discord_base_url: { label: 'Discord: адрес сервиса' },
    vk_key_dropped_at: { label: 'Защищённый ключ VK удалён при смене адреса', kind: 'datetime' },
    telegram_key_dropped_at: { label: 'Токен бота Telegram удалён при смене адреса', kind: 'datetime' },
    discord_key_dropped_at: { label: 'Client Secret Discord удалён при смене адреса', kind: 'datetime' },
  },
  page: { body: { label: 'Текст (Markdown)' }, place: { label: 'Где ссылка' }, slug: { label: 'Адрес' } },
  // A top-up and its refund (roubles, statuses in Russian as recorded).
  payment: {
    amount: { label: 'Сумма возврата на карту', kind: 'roubles' },
    bonus: { label: 'Бонус', kind: 'roubles' },
    enabled: { label: 'Включён', kind: 'boolean' },
    min: { label: 'Минимальная сумма', kind: 'roubles' },
    max: { label: 'Максимальная сумма', kind: 'roubles' },
    changed: { label: 'Изменено' },
    balance: { label: 'Баланс игрока', kind: 'roubles' },
    provider: { label: 'Способ оплаты' },
    reason: { label: 'Причина' },
    attempt: { label: 'Попытка возврата', kind: 'number' },
  },
};

/** Bookkeeping columns that say nothing the entry's own date and number do not. */
export const AUDIT_HIDDEN_FIELDS: readonly string[] = [
  'id',
  'created_at',
  'updated_at',
  'deleted_at',
  'username_lower',
  'email_lower',
  'name_key',
  'code_key',
];

const VERBS: Record<string, string> = { create: 'создана', add: 'создана', update: 'изменена', delete: 'удалена', remove: 'удалена' };

/** «Товар создан»; an action nobody has named yet reads «Запись создана (Товары)» or «Изменение в админ-панели». */
export function auditAction(action: string, entity: string): string {
  const known = AUDIT_ACTION_LABELS[action];
  if (known) return known;
  const verb = VERBS[action.split('.').at(-1) ?? ''];
  const section = AUDIT_ENTITY_LABELS[entity];
  if (verb) return section ? `Запись ${verb} (${section})` : `Запись ${verb}`;
  return section ? `Изменение (${section})` : 'Изменение в админ-панели';
}

/** The settings documents by the key the server records as a «Настройки изменены» entry's id. */
export const AUDIT_SETTINGS_LABELS: Record<string, string> = {
  site: 'Настройки сайта',
  payments: 'Платежи: бонусы и чек',
  game_login: 'Вход в игру',
  home: 'Виджеты главной',
  vote_prizes: 'Голосование: призы месяца',
  referrals: 'Рефералы',
  social: 'Вход через соцсети',
  announce: 'Объявления в Discord, Telegram и VK',
  ban_source: 'Баны на сайте: плагин наказаний',
  fiscal: 'Продавец и чеки',
};

const recordOf = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const textOf = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/**
 * What an entry is about, after its action, named by what it is: a player by name («игрок
 * Steve»), a record by its title, name or code («Алмазная кирка»), a payment method or a
 * launcher's system by its Russian name, a settings document by its; a record known only by its
 * number: «№12». `before`/`after` are the entry's records (the names are read from them).
 */
export function auditSubject(entity: string, entityId: string | null | undefined, before?: unknown, after?: unknown): string | null {
  if (entityId === null || entityId === undefined || entityId === '') return null;
  if (entity === 'settings') return AUDIT_SETTINGS_LABELS[entityId] ?? 'Другие настройки';
  if (entity === 'payment') {
    const provider = (PAYMENT_PROVIDER_TEXT as Record<string, string>)[entityId];
    return provider ?? `платёж ${entityId.slice(0, 8)}`;
  }
  if (entity === 'launcher') return (LAUNCHER_PLATFORM_INFO as Record<string, { label: string }>)[entityId]?.label ?? 'Лаунчер';
  const record = { ...recordOf(before), ...recordOf(after) };
  const player = textOf(record.username) ?? textOf(record.player);
  if (player) return `игрок ${player}`;
  const name = textOf(record.title) ?? textOf(record.name) ?? textOf(record.code) ?? textOf(record.label);
  if (name) return `«${name.length > 60 ? `${name.slice(0, 60)}…` : name}»`;
  if (entity === 'page') return `/p/${entityId}`;
  if (entity === 'delivery' || entity === 'shop_delivery') return `выдача №${entityId}`;
  return /^\d+$/.test(entityId) ? `№${entityId}` : null;
}

/** The section's name, or a neutral one. */
export const auditEntity = (entity: string): string => AUDIT_ENTITY_LABELS[entity] ?? 'Другой раздел';

/** Whether a field has its own Russian name (listed above), not one guessed from its key. */
export const auditFieldNamed = (entity: string, key: string): boolean =>
  AUDIT_HIDDEN_FIELDS.includes(key) || !!(AUDIT_ENTITY_FIELD_LABELS[entity]?.[key] ?? AUDIT_FIELD_LABELS[key]);

/**
 * A field's Russian name and how to show it; an unknown field is named by what its name says it
 * holds. `record` is the entry's record, for a field whose meaning follows another (a promo
 * code's value: a percent, or kopecks for a fixed discount).
 */
export function auditField(entity: string, key: string, record?: unknown): AuditFieldLabel {
  if (entity === 'promo_code' && key === 'value') {
    const kind = recordOf(record).kind;
    return kind === 'fixed'
      ? { label: 'Скидка', kind: 'kopecks' }
      : { label: kind === 'topup_bonus' ? 'Бонус, %' : 'Скидка, %', kind: 'percent' };
  }
  const known = AUDIT_ENTITY_FIELD_LABELS[entity]?.[key] ?? AUDIT_FIELD_LABELS[key];
  if (known) return known;
  if (/password|token|secret/i.test(key)) return { label: 'Секретное поле', kind: 'secret' };
  if (key.endsWith('_kopecks')) return { label: 'Сумма', kind: 'kopecks' };
  if (key.endsWith('_at')) return { label: 'Время', kind: 'datetime' };
  if (key.startsWith('is_')) return { label: 'Признак', kind: 'boolean' };
  if (key.endsWith('_id')) return { label: 'Связанная запись (№)', kind: 'number' };
  if (key.endsWith('_url')) return { label: 'Ссылка' };
  return { label: 'Другое поле' };
}
