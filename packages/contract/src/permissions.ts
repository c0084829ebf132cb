import { z } from 'zod';

/**
 * Staff permissions. The owner (`is_admin`) holds every one; a staff member holds
 * those of their role. Every admin route needs exactly one of these, or 'owner' (only the owner:
 * roles and owners are managed by the owner alone).
 */
export const PERMISSIONS = [
  'news',
  'pages',
  'shop',
  'donate',
  'servers',
  'players.view',
  'players.balance',
  'bans',
  'payments.view',
  'payments.refund',
  'promo',
  'votes',
  'support',
  'settings',
  'roles',
  'audit',
] as const;
export const Permission = z.enum(PERMISSIONS, { error: 'Неизвестное право' });
export type Permission = z.infer<typeof Permission>;

/** What a route may require: a permission, or 'owner' for the owner alone. */
export type RoutePermission = Permission | 'owner';

/** Russian names and what each permission opens, in the order above (the role form shows them). */
export const PERMISSION_LABELS: Record<Permission, { label: string; hint: string }> = {
  news: { label: 'Новости', hint: 'Писать, править и удалять новости' },
  pages: { label: 'Страницы и картинки', hint: 'Страницы сайта и загруженные картинки' },
  shop: { label: 'Магазин', hint: 'Товары, категории и выдача покупок' },
  donate: { label: 'Донат и плащи', hint: 'Привилегии, наборы и плащи' },
  servers: { label: 'Серверы', hint: 'Игровые серверы, RCON и вход в игру' },
  'players.view': { label: 'Игроки: просмотр', hint: 'Список игроков и их карточки' },
  'players.balance': { label: 'Игроки: правка и баланс', hint: 'Менять аккаунты игроков, их баланс, удалять аккаунты' },
  bans: { label: 'Блокировки', hint: 'Блокировать и разблокировать игроков' },
  'payments.view': { label: 'Платежи: просмотр', hint: 'Пополнения, обзор и выгрузка' },
  'payments.refund': { label: 'Платежи: возвраты', hint: 'Возвращать платежи' },
  promo: { label: 'Промокоды', hint: 'Промокоды' },
  votes: { label: 'Голосования', hint: 'Сайты-топы и награды за голоса' },
  support: { label: 'Обращения', hint: 'Отвечать на обращения игроков и обжалования блокировок, категории и шаблоны ответов' },
  settings: { label: 'Настройки', hint: 'Настройки сайта, безопасности и подключения' },
  roles: { label: 'Роли (просмотр)', hint: 'Видеть роли и кто их носит; менять их может только владелец' },
  audit: { label: 'Журнал изменений', hint: 'Читать журнал изменений' },
};
