import { LIMIT_PERIOD_TEXT, type ShopItem } from '@kubik/contract';
import { formatDateTime, formatRub, plural } from '../../lib/format.ts';

/** «16 шт. за 99 ₽» for an item that gives several pieces; «99 ₽» for one. */
export function priceText(item: Pick<ShopItem, 'price' | 'pieces'>): string {
  return item.pieces > 1 ? `${item.pieces} шт. за ${formatRub(item.price)}` : formatRub(item.price);
}

/** «Осталось: 3 шт.», «Нет в наличии», or nothing for unlimited stock. */
export function stockText(item: Pick<ShopItem, 'count'>): string | null {
  if (item.count === null) return null;
  return item.count <= 0 ? 'Нет в наличии' : `Осталось: ${item.count} шт.`;
}

export const isSoldOut = (item: Pick<ShopItem, 'count'>) => item.count !== null && item.count <= 0;

/** Purchases one may make at most in one go: the stock, or a generous cap for unlimited items. */
export const maxQuantity = (item: Pick<ShopItem, 'count' | 'limit_per_player'>) =>
  Math.max(0, Math.min(item.count ?? 10_000, item.limit_per_player ?? 10_000));

/** «Не больше 1 покупки на игрока в сутки». */
export function limitText(item: Pick<ShopItem, 'limit_per_player' | 'limit_period'>): string | null {
  if (item.limit_per_player === null) return null;
  const n = item.limit_per_player;
  return `Не больше ${n} ${plural(n, ['покупки', 'покупок', 'покупок'])} на игрока ${LIMIT_PERIOD_TEXT[item.limit_period]}`;
}

/** «Акция до 01.12.2026, 14:05 — осталось 2 дня» (or 5 ч, or 12 мин). */
export function saleText(endsAt: number | null, now: number): string {
  if (endsAt === null) return 'Акция';
  const left = Math.max(0, endsAt - now);
  const days = Math.floor(left / 86_400_000);
  const hours = Math.floor(left / 3_600_000);
  const minutes = Math.max(1, Math.ceil(left / 60_000));
  const rest =
    days >= 1
      ? `${days} ${plural(days, ['день', 'дня', 'дней'])}`
      : hours >= 1
        ? `${hours} ч ${Math.floor((left % 3_600_000) / 60_000)} мин`
        : `${minutes} мин`;
  return `Акция до ${formatDateTime(endsAt)} — осталось ${rest}`;
}
