import type { DeliveryStatus, DeliveryStatusState } from '@kubik/contract';
import { Badge, type BadgeTone } from './Badge.tsx';

const TONE: Record<DeliveryStatusState, BadgeTone> = {
  sending: 'warning',
  waiting_player: 'warning',
  server_down: 'warning',
  done: 'success',
  failed: 'danger',
  refunded: 'neutral',
};

/**
 * How a privilege, a kit claim or an order got into the game, from the server's `delivery`
 * ({state, reason, text}): the headline as a badge, and the sentence the player acts on.
 */
export function DeliveryStatusNote({ status, what }: { status: DeliveryStatus | null; what?: string }) {
  if (!status) return null;
  return (
    <div className={`delivery-status delivery-status-${status.state}`} data-testid="delivery-status" data-state={status.state}>
      <Badge tone={TONE[status.state]}>
        {what ? `${what}: ` : ''}
        {status.text}
      </Badge>
      {status.reason && <p className="delivery-status-reason">{status.reason}</p>}
    </div>
  );
}
