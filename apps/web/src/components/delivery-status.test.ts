import { deliveryStatus, ledgerKindText } from '@kubik/contract';
import { describe, expect, it } from 'vitest';

// What a card says about its deliveries (contract's deliveryStatus), and the history's kind names.
const d = (
  state: 'pending' | 'sent' | 'done' | 'failed' | 'unknown' | 'refunded',
  waiting: 'player_offline' | 'server_down' | 'no_server' | null = null,
) => ({
  state,
  waiting,
  server_name: 'Выживание',
  source: 'privilege_grant' as const,
});

describe('deliveryStatus', () => {
  it('names each state in the words of the issue', () => {
    expect(deliveryStatus([d('sent')])).toEqual({ state: 'sending', text: 'Выдаётся', reason: null });
    expect(deliveryStatus([d('pending')])?.text).toBe('Выдаётся');
    expect(deliveryStatus([d('pending', 'player_offline')])).toEqual({
      state: 'waiting_player',
      text: 'Ждёт: зайдите на сервер «Выживание»',
      reason: 'Зайдите на сервер «Выживание», чтобы получить привилегию',
    });
    expect(deliveryStatus([d('pending', 'server_down')])).toMatchObject({ state: 'server_down', text: 'Сервер недоступен' });
    expect(deliveryStatus([d('pending', 'no_server')])?.state).toBe('server_down');
    expect(deliveryStatus([d('done')])).toEqual({ state: 'done', text: 'Выдано', reason: null });
    expect(deliveryStatus([d('failed')])?.text).toBe('Ошибка выдачи — администратор уже видит её');
    expect(deliveryStatus([d('unknown')])?.state).toBe('failed');
    expect(deliveryStatus([])).toBeNull();
  });

  it('lets the delivery that needs attention most speak for all of them', () => {
    expect(deliveryStatus([d('done'), d('failed'), d('pending', 'server_down')])?.state).toBe('failed');
    expect(deliveryStatus([d('done'), d('pending', 'player_offline'), d('pending', 'server_down')])?.state).toBe('server_down');
    expect(deliveryStatus([d('done'), d('sent')])?.state).toBe('sending');
    expect(deliveryStatus([d('done'), d('refunded')])?.state).toBe('done');
    expect(deliveryStatus([d('refunded')])?.state).toBe('refunded');
  });
});

describe('ledgerKindText', () => {
  it('names known kinds and falls back by sign for new ones', () => {
    expect(ledgerKindText('vote_reward')).toBe('Награда за голос');
    expect(ledgerKindText('referral_reward')).toBe('Награда за приглашение');
    expect(ledgerKindText('something_new', 100)).toBe('Зачисление');
    expect(ledgerKindText('something_new', -100)).toBe('Списание');
  });
});
