import { AdminSiteSettings, SiteInfo, SiteSettings, SiteSettingsPatch } from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { sendCached } from '../../front-door/http.ts';
import { userOf } from '../../plugins/auth.ts';
import { SiteSettingsDoc } from './site.settings.ts';
import { errorReplies } from '../../lib/errors.ts';

const tags = ['Сайт'];

/** Public answers built from the site settings; dropped on every instance when they change. */
export const SITE_CACHE_KEYS = ['site.settings', 'site.info', 'web.index'] as const;

export function siteRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  // The settings store tells every instance about a change; each drops the answers built from them.
  ctx.settings.subscribe(SiteSettingsDoc.key, () => {
    for (const key of SITE_CACHE_KEYS) void ctx.publicCache.invalidate(key);
  });
  const settings = () => ctx.settings.get(SiteSettingsDoc);

  return async (app) => {
    app.get('/api/site/settings', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Настройки сайта для всех: название, логотип, цвет, адрес сервера, ссылки, подвал',
        response: { 200: SiteSettings, 304: z.null() },
      },
      handler: async (req, reply) => sendCached(req, reply, await ctx.publicCache.get('site.settings', settings)),
    });

    // The first release's answer, kept for clients that read it.
    app.get('/api/site', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Название сайта, ссылки на лаунчер и поддержку (прежний ответ; новый — /api/site/settings)',
        response: { 200: SiteInfo, 304: z.null() },
      },
      handler: async (req, reply) =>
        sendCached(
          req,
          reply,
          await ctx.publicCache.get('site.info', async (): Promise<SiteInfo> => {
            const s = await settings();
            return {
              name: s.name,
              launcher: { version: s.launcher_version, windows_url: s.launcher_windows_url, linux_url: s.launcher_linux_url },
              support: { vk: s.support_vk, telegram: s.support_telegram, discord: s.support_discord },
            };
          }),
        ),
    });

    const adminView = async () => {
      const [value, stored] = await Promise.all([settings(), ctx.settings.stored(SiteSettingsDoc)]);
      return {
        value,
        defaults: SiteSettings.parse(SiteSettingsDoc.defaults(ctx.config)),
        stored: Object.keys(stored).filter((k) => k in SiteSettings.shape),
      };
    };

    app.get('/api/admin/settings', {
      config: { access: 'admin', permission: 'settings' },
      schema: {
        tags,
        summary: 'Настройки сайта, их значения по умолчанию и что изменил владелец (администратор)',
        response: { 200: AdminSiteSettings, ...errorReplies(401, 403) },
      },
      handler: adminView,
    });

    app.put('/api/admin/settings', {
      config: { access: 'admin', permission: 'settings' },
      schema: {
        tags,
        summary: 'Изменить настройки сайта (администратор): переданные поля меняются, null возвращает значение по умолчанию',
        body: SiteSettingsPatch,
        response: { 200: AdminSiteSettings, ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => {
        const patch = Object.fromEntries(Object.entries(req.body).map(([k, v]) => [k, v === null ? undefined : v]));
        await ctx.settings.set(SiteSettingsDoc, patch, { actorId: userOf(req).id });
        // The store's goal answer (donate.goal) shows the goal and whether amounts show: built again now.
        await ctx.publicCache.invalidate('donate.goal');
        return adminView();
      },
    });
  };
}
