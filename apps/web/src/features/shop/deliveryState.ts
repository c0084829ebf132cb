import { DELIVERY_STATE_TEXT, type DeliveryState, type DeliveryWaiting } from '@kubik/contract';
import type { BadgeTone } from '../../components/Badge.tsx';

export const DELIVERY_TONE: Record<DeliveryState, BadgeTone> = {
  pending: 'warning',
  sent: 'warning',
  done: 'success',
  failed: 'danger',
  unknown: 'danger',
  refunded: 'neutral',
};

export const deliveryText = (state: DeliveryState) => DELIVERY_STATE_TEXT[state];

/** Why a pending delivery waits, as the admin reads it. */
export const WAITING_TEXT: Record<DeliveryWaiting, string> = {
  player_offline: 'ждёт, когда игрок зайдёт на сервер',
  server_down: 'ждёт, когда сервер станет доступен',
  no_server: 'некуда выдавать: нет сервера с RCON',
};

/** States that will still change on their own: worth polling for. */
export const isMoving = (state: DeliveryState) => state === 'pending' || state === 'sent';
