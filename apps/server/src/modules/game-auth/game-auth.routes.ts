import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorResponse, GameLoginInfo, GameLoginSettingsBody } from '@kubik/contract';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../lib/errors.ts';
import { BufferCache } from '../../lib/skin/lru-cache.ts';
import { userOf } from '../../plugins/auth.ts';
import { capeTextures, loginsEnded, skinTextures } from '../users/users.ports.ts';
import { createGameAuth, revokeGameTokens } from './game-auth.service.ts';
import { GameLoginSettings } from './game-auth.settings.ts';
import { GRAVIT_LEGACY_ROOT, gravitLegacyRoutes } from './gravit-legacy.routes.ts';
import { GRAVIT_ROOT, gravitRoutes } from './gravit.routes.ts';
import { renamedTexture } from './texture-aliases.repo.ts';
import { YGGDRASIL_ROOT, yggdrasilRoutes } from './yggdrasil.routes.ts';

/** Texture files kept in memory; named by the hash of their pixels, so they never go stale. */
const TEXTURE_CACHE_BYTES = 16 * 1024 * 1024;

export function gameAuthRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  // A launcher's login is a login of the player: it ends whenever the site's sessions end.
  loginsEnded.on('game-auth', revokeGameTokens);
  const game = createGameAuth(ctx);
  const files = new BufferCache(TEXTURE_CACHE_BYTES);
  return async (app) => {
    await app.register(yggdrasilRoutes(ctx, game), { prefix: YGGDRASIL_ROOT });
    await app.register(gravitRoutes(ctx, game), { prefix: GRAVIT_ROOT });
    await app.register(gravitLegacyRoutes(ctx, game), { prefix: GRAVIT_LEGACY_ROOT });

    const info = async (): Promise<GameLoginInfo> => {
      const settings = await ctx.settings.get(GameLoginSettings);
      return {
        ...settings,
        yggdrasil_url: `${ctx.config.publicUrl}${YGGDRASIL_ROOT}/`,
        site_url: ctx.config.publicUrl,
        gravit_enabled: !!ctx.config.gravitSecret,
      };
    };

    app.get('/api/game-login', {
      config: { access: 'public' },
      schema: {
        tags: ['Вход в игру'],
        summary: 'Как подключить лаунчер к сайту: адрес authlib-injector, GravitLauncher, слова владельца',
        response: { 200: GameLoginInfo },
      },
      handler: info,
    });

    app.get('/api/admin/game-login', {
      config: { access: 'admin', permission: 'servers' },
      schema: {
        tags: ['Вход в игру'],
        summary: 'Настройки входа в игру',
        response: { 200: GameLoginInfo, 401: ErrorResponse, 403: ErrorResponse },
      },
      handler: info,
    });

    app.put('/api/admin/game-login', {
      config: { access: 'admin', permission: 'servers' },
      schema: {
        tags: ['Вход в игру'],
        summary: 'Изменить название сервера входа (его показывают лаунчеры) и текст на странице помощи',
        body: GameLoginSettingsBody,
        response: { 200: GameLoginInfo, 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse },
      },
      handler: async (req) => {
        await ctx.settings.set(GameLoginSettings, req.body, { actorId: userOf(req).id });
        return info();
      },
    });

    // Skins and capes by the hash of their pixels: the address the game loads and caches them by.
    app.get('/textures/:hash', {
      config: { access: 'public' },
      schema: {
        tags: ['Скины'],
        summary: 'Файл скина или плаща по хэшу его пикселей (адреса из текстур Yggdrasil и GravitLauncher)',
        params: z.object({ hash: z.string().regex(/^[0-9a-f]{64}$/, 'Некорректный адрес текстуры') }),
        response: {
          200: z.string().meta({ format: 'binary' }),
          304: z.null(),
          400: z.object({ error: z.string() }),
          404: z.object({ error: z.string() }),
        },
      },
      handler: async (req, reply) => {
        const { hash } = req.params;
        let png = files.get(hash);
        if (!png) {
          const stored = async (name: string) =>
            (await skinTextures.ask().png(ctx.db, name)) ?? (await capeTextures.ask().png(ctx.db, name)) ?? undefined;
          png = await stored(hash);
          // A name from before the hash changed: cached profiles and player heads still use it.
          if (!png) {
            const renamed = await renamedTexture(ctx.db, hash);
            if (renamed) png = await stored(renamed);
          }
          if (!png) throw notFound('Текстура не найдена');
          files.set(hash, png);
        }
        return sendTexture(req, reply, hash, png);
      },
    });
  };
}

function sendTexture(req: FastifyRequest, reply: FastifyReply, hash: string, png: Buffer): FastifyReply {
  reply
    .header('etag', `"${hash}"`)
    .header('cache-control', 'public, max-age=31536000, immutable')
    // Launcher pages and skin sites elsewhere may show them (an <img> or a WebGL texture).
    .header('cross-origin-resource-policy', 'cross-origin')
    .header('access-control-allow-origin', '*');
  if (req.headers['if-none-match'] === `"${hash}"`) return reply.code(304).send();
  return reply.type('image/png').send(png);
}
