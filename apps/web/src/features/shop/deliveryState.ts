import { DELIVERY_STATE_TEXT, type DeliveryState } from '@kubik/contract';
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

/** States that will still change on their own: worth polling for. */
export const isMoving = (state: DeliveryState) => state === 'pending' || state === 'sent';
