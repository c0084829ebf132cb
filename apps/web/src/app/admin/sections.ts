import type { Permission } from '@kubik/contract';

/** One admin screen: where it is, its name in the menu and the permission it needs (the server's for its API). */
export interface AdminSectionLink {
  to: string;
  label: string;
  permission: Permission;
  end?: boolean;
}

/** The admin menu, grouped; a staff member sees only the screens their role allows. */
export const ADMIN_GROUPS: { title: string; sections: AdminSectionLink[] }[] = [
  {
    title: 'Игроки',
    sections: [
      { to: '/admin/users', label: 'Пользователи', permission: 'players.view' },
      { to: '/admin/payments', label: 'Платежи', permission: 'payments.view' },
      { to: '/admin/fiscal', label: 'Продавец и чеки', permission: 'payments.view' },
      { to: '/admin/support', label: 'Обращения', permission: 'support' },
    ],
  },
  {
    title: 'Содержимое',
    sections: [
      { to: '/admin/news', label: 'Новости', permission: 'news' },
      { to: '/admin/announcements', label: 'Объявления', permission: 'settings' },
      { to: '/admin/pages', label: 'Страницы', permission: 'pages' },
      { to: '/admin/media', label: 'Картинки', permission: 'pages' },
    ],
  },
  {
    title: 'Продажи',
    sections: [
      { to: '/admin/shop', label: 'Магазин', permission: 'shop' },
      { to: '/admin/promo', label: 'Промокоды', permission: 'promo' },
      { to: '/admin/donate', label: 'Донат', permission: 'donate' },
      { to: '/admin/capes', label: 'Плащи', permission: 'donate' },
      { to: '/admin/votes', label: 'Голосование и рефералы', permission: 'votes' },
    ],
  },
  {
    title: 'Игра',
    sections: [
      { to: '/admin/servers', label: 'Серверы', permission: 'servers' },
      { to: '/admin/game-login', label: 'Вход в игру', permission: 'servers' },
      { to: '/admin/launcher', label: 'Лаунчер', permission: 'settings' },
      { to: '/admin/authme', label: 'AuthMe', permission: 'settings' },
      { to: '/admin/bans', label: 'Баны на сайте', permission: 'bans' },
    ],
  },
  {
    title: 'Управление',
    sections: [
      { to: '/admin', label: 'Обзор', permission: 'payments.view', end: true },
      { to: '/admin/staff', label: 'Сотрудники', permission: 'roles' },
      { to: '/admin/settings', label: 'Настройки', permission: 'settings' },
      { to: '/admin/security', label: 'Безопасность', permission: 'settings' },
      { to: '/admin/audit', label: 'Журнал изменений', permission: 'audit' },
    ],
  },
];

const ALL = ADMIN_GROUPS.flatMap((g) => g.sections);

/** The screens `permissions` open, in menu order. */
export function allowedSections(permissions: readonly string[]): AdminSectionLink[] {
  return ALL.filter((s) => permissions.includes(s.permission));
}

/** The screen at `path` (its own address, or one under it), whose permission opens it. */
export function sectionAt(path: string): AdminSectionLink | undefined {
  return (
    ALL.find((s) => path === s.to) ?? ALL.filter((s) => !s.end && path.startsWith(`${s.to}/`)).sort((a, b) => b.to.length - a.to.length)[0]
  );
}
