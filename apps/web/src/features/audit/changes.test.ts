import type { AuditEntry } from '@kubik/contract';
import { describe, expect, it } from 'vitest';
import { changesOf } from './changes.ts';

const entry = (entity: string, before: unknown, after: unknown): AuditEntry => ({
  id: 1,
  created_at: '2026-12-06T12:00:00.000Z',
  actor_id: 1,
  actor_username: 'Owner',
  action: `${entity}.update`,
  entity,
  entity_id: '1',
  before,
  after,
});

const lines = (e: AuditEntry) => changesOf(e).map((c) => `${c.label}: ${c.before ?? ''} → ${c.after ?? ''}`);

describe('the audit log’s changes, in Russian', () => {
  it('a promo code row: its kind, scope, value by its kind, items and dates', () => {
    expect(
      lines(
        entry(
          'promo_code',
          { kind: 'fixed', value: 5000, applies_to: 'shop', item_ids: '[3,4]', min_total: 10000, code_key: 'old' },
          { kind: 'percent', value: 20, applies_to: 'donate', item_ids: null, min_total: null, code_key: 'new' },
        ),
      ),
    ).toEqual([
      'Вид: Скидка в рублях → Скидка в процентах',
      'Скидка, %: 5\u00a0000 % → 20 %',
      'Применяется к: Магазин → Привилегии',
      'Только товары (№): 3, 4 → —',
      'Минимальная сумма: 100\u00a0₽ → —',
    ]);
  });

  it('a shop item row: kopecks, its commands kept as JSON text, its limit period', () => {
    expect(
      lines(
        entry(
          'shop_item',
          { sale_price: 1000, commands: '["give {player} diamond 1"]', limit_period: 'ever', unlimited: 0 },
          { sale_price: 1250, commands: '[]', limit_period: 'day', unlimited: 1 },
        ),
      ),
    ).toEqual([
      'Цена по акции: 10\u00a0₽ → 12,50\u00a0₽',
      'Свои команды: give {player} diamond 1 → нет',
      'Период лимита: всего → в сутки',
      'Количество без ограничения: нет → да',
    ]);
  });

  it('a tier’s periods and a delivery’s target', () => {
    expect(
      lines(
        entry(
          'donate',
          { periods: [{ months: 1, discount: 0 }] },
          {
            periods: [
              { months: 1, discount: 0 },
              { months: 3, discount: 10 },
            ],
          },
        ),
      ),
    ).toEqual(['Сроки покупки: 1 мес. → 1 мес., 3 мес. (−10 %)']);
    expect(lines(entry('delivery', { server_scope: 'only' }, { server_scope: 'server' }))).toEqual([
      'Куда выдавать: единственный сервер с RCON → выбранный сервер',
    ]);
  });
});
