import { AdminReferralRewards, ReferralResponse, ReferralSettingsBody } from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { userOf } from '../../plugins/auth.ts';
import { topupCredited, topupRefunded, userErased, userRegistered } from '../users/users.ports.ts';
import * as service from './referrals.service.ts';
import { ReferralSettings } from './referrals.settings.ts';
import { errorReplies } from '../../lib/errors.ts';

const tags = ['Рефералы'];

export function referralsRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  userRegistered.on('referrals', service.rememberInviter);
  topupCredited.on('referrals', service.payForTopup);
  topupRefunded.on('referrals', service.reverseForRefund);
  userErased.on('referrals', service.forgetSignup);

  return async (app) => {
    // Held rewards wait in their table: whichever instance runs the job credits those due.
    ctx.jobs.register(ctx.schedule.job(service.releaseJob(ctx.db)));

    app.get('/api/user/referral', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Реферальная ссылка игрока, кого он пригласил и сколько заработал (₽, за вычетом возвратов)',
        response: { 200: ReferralResponse, ...errorReplies(401) },
      },
      handler: async (req) => service.myReferrals(ctx, userOf(req).id),
    });

    // A shared link: remembers the code for the registration that follows and opens its page.
    app.get('/r/:code', {
      config: { access: 'public' },
      schema: { hide: true, params: z.object({ code: z.string().max(64) }) },
      handler: async (req, reply) => {
        const code = req.params.code.toLowerCase();
        if (service.CODE_SHAPE.test(code))
          reply.setCookie(service.REFERRAL_COOKIE, code, {
            path: '/',
            httpOnly: true,
            sameSite: 'lax',
            secure: ctx.config.secureCookies,
            maxAge: service.REFERRAL_COOKIE_MAX_AGE_SEC,
          });
        return reply.code(302).header('cache-control', 'no-store').redirect('/register');
      },
    });

    app.get('/api/admin/referral-settings', {
      config: { access: 'admin', permission: 'votes' },
      schema: { tags, summary: 'Правила реферальной программы', response: { 200: ReferralSettingsBody, ...errorReplies(401, 403) } },
      handler: async () => ctx.settings.get(ReferralSettings),
    });

    // Every rule here decides how much balance is paid on top of what players paid: the owner's
    // (staff with `votes` see them).
    app.put('/api/admin/referral-settings', {
      config: { access: 'admin', permission: 'owner' },
      schema: {
        tags,
        summary:
          'Задать правила (только владелец): доля от пополнений приглашённого на N дней и/или бонус (не больше M) за первое пополнение от M ₽; награда ждёт hold_days дней',
        body: ReferralSettingsBody,
        response: { 200: ReferralSettingsBody, ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => ctx.settings.set(ReferralSettings, req.body, { actorId: userOf(req).id }),
    });

    app.get('/api/admin/referral-rewards', {
      config: { access: 'admin', permission: 'votes' },
      schema: {
        tags,
        summary: 'Последние 100 реферальных наград: ждут, зачислены, отменены возвратом или не выплачены (и почему)',
        response: { 200: AdminReferralRewards, ...errorReplies(401, 403) },
      },
      handler: async () => service.latestRewards(ctx.db),
    });
  };
}
