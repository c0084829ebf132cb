import { AnnounceSettingsBody, AnnounceSettingsView, AnnounceTestBody, AnnounceTestResult } from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { errorReplies } from '../../lib/errors.ts';
import { userOf } from '../../plugins/auth.ts';
import { siteEvent } from '../users/users.ports.ts';
import { ANNOUNCE_JOB, announceJob, recordEvent, sendTest, settingsView } from './announce.service.ts';
import { saveAnnounce } from './announce.settings.ts';

const tags = ['Объявления'];

export function announceRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  ctx.jobs.register(announceJob(ctx));
  siteEvent.on('announce', async (db, event) => {
    await recordEvent(db, event);
    // The job also polls every few seconds; the kick waits for the event's transaction to end.
    setTimeout(() => ctx.jobs.kick(ANNOUNCE_JOB), 50).unref();
  });

  return async (app) => {
    // Webhook addresses and bot tokens are keys to the community's channels: the owner's alone.
    const owner = { config: { access: 'admin' as const, permission: 'owner' as const } };

    app.get('/api/admin/announcements', {
      ...owner,
      schema: {
        tags,
        summary: 'Объявления в Discord, Telegram и VK: что настроено (без адресов и токенов), события, шаблоны, последние сообщения',
        response: { 200: AnnounceSettingsView, ...errorReplies(401, 403) },
      },
      handler: async () => settingsView(ctx),
    });

    app.put('/api/admin/announcements', {
      ...owner,
      schema: {
        tags,
        summary:
          'Изменить объявления (только владелец): discord_webhook_url (https на хосте DISCORD_URL), telegram_bot_token + telegram_chat_id, vk_token + vk_group_id (vk_mode wall | messages, vk_peer_id), events, purchase_amount, templates. Секреты не показываются; null удаляет',
        body: AnnounceSettingsBody,
        response: { 200: AnnounceSettingsView, ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => {
        await saveAnnounce(ctx, req.body, userOf(req).id);
        return settingsView(ctx);
      },
    });

    app.post('/api/admin/announcements/test', {
      ...owner,
      schema: {
        tags,
        summary: 'Отправить пробное сообщение в канал (шаблон события с примером данных) и сказать, как прошло',
        body: AnnounceTestBody,
        response: { 200: AnnounceTestResult, ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => sendTest(ctx, req.body.channel, req.body.event),
    });
  };
}
