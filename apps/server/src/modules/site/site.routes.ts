import { SiteInfo } from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';

export function siteRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const info: SiteInfo = {
    name: ctx.config.siteName,
    launcher: { version: ctx.config.launcher.version, windows_url: ctx.config.launcher.windowsUrl, linux_url: ctx.config.launcher.linuxUrl },
    support: ctx.config.support,
  };
  return async (app) => {
    app.get('/api/site', {
      config: { access: 'public' },
      schema: { tags: ['Сайт'], summary: 'Название сайта, ссылки на лаунчер и поддержку', response: { 200: SiteInfo } },
      handler: async (_req, reply) => {
        reply.header('cache-control', 'public, max-age=60');
        return info;
      },
    });
  };
}
