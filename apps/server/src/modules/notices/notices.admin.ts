import type { AdminNoticeBody } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../lib/errors.ts';
import { recordAudit } from '../audit/audit.service.ts';
import type { User } from '../users/users.repo.ts';
import { activeUserId } from './notices.repo.ts';
import { notify, notifyAll } from './notices.service.ts';

/** Messages from the administration to the players' bells, each audited in its own transaction. */

export const ADMIN_NOTICE_TEXTS = {
  noUser: 'Игрок не найден',
  sentOne: 'Сообщение отправлено',
  sentAll: 'Сообщение отправлено всем игрокам',
} as const;

/** To every account that is not deleted; returns how many got it. */
export function sendToAll(ctx: AppContext, actor: User, message: AdminNoticeBody): Promise<number> {
  return ctx.db.transaction().execute(async (trx) => {
    const n = await notifyAll(trx, { kind: 'message', title: message.title, body: message.body || null });
    await recordAudit(trx, { actorId: actor.id, action: 'notice.broadcast', entity: 'notice', after: { ...message, sent: n } });
    return n;
  });
}

/** To one player; 404 when the account does not exist or is deleted. */
export async function sendToPlayer(ctx: AppContext, actor: User, userId: number, message: AdminNoticeBody): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const target = await activeUserId(trx, userId);
    if (target === undefined) throw notFound(ADMIN_NOTICE_TEXTS.noUser, { code: 'notice_user_not_found' });
    await notify(trx, target, { kind: 'message', title: message.title, body: message.body || null });
    await recordAudit(trx, { actorId: actor.id, action: 'notice.send', entity: 'user', entityId: target, after: message });
  });
}
