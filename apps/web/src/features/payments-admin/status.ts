import type { PaymentStatus } from '@kubik/contract';
import type { BadgeTone } from '../../components/Badge.tsx';

/** How a payment's status is coloured: paid green, being refunded amber, refunded red. */
export const STATUS_TONE: Record<PaymentStatus, BadgeTone> = {
  pending: 'neutral',
  succeeded: 'success',
  canceled: 'neutral',
  refunding: 'warning',
  refunded: 'danger',
};
