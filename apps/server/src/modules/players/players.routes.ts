import {
  HomeSettings,
  HomeSettingsPatch,
  HomeShowcase,
  PlayerNameParams,
  PlayerPrivacy,
  PlayerProfile,
  ProfileParams,
  PublicProfile,
} from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { userOf } from '../../plugins/auth.ts';
import { hiddenPlayers as hiddenPlayersPort, privacyChanged, seenInGame } from '../users/users.ports.ts';
import { hiddenPlayers, privacyOf, publicProfile, recordSeen, setPrivacy, shortProfile, showcase } from './players.service.ts';
import { lastLedgerId } from './players.repo.ts';
import { HomeSettingsDoc } from './players.settings.ts';
import { errorReplies } from '../../lib/errors.ts';

const tags = ['Игроки'];
/**
 * The home page's widgets are kept per instance until the ledger moves (one primary-key lookup
 * per request) or this long has passed (another instance's privacy or settings change).
 */
const SHOWCASE_TTL_MS = 10_000;

export function playersRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  seenInGame.on('players', recordSeen);
  hiddenPlayersPort.provide(hiddenPlayers);
  let cached: { at: number; ledgerId: number; value: Promise<HomeShowcase> } | null = null;
  ctx.settings.subscribe(HomeSettingsDoc.key, () => {
    cached = null;
  });
  const homeShowcase = async () => {
    const now = Date.now();
    const ledgerId = await lastLedgerId(ctx.db);
    if (!cached || cached.ledgerId !== ledgerId || now - cached.at > SHOWCASE_TTL_MS) {
      const value = showcase(ctx, now);
      cached = { at: now, ledgerId, value };
      value.catch(() => {
        if (cached?.value === value) cached = null;
      });
    }
    return cached.value;
  };

  return async (app) => {
    app.get('/api/players/:name', {
      config: { access: 'public' },
      schema: {
        tags,
        summary:
          'Открытый профиль игрока: голова и скин с плащом, привилегия, дата регистрации, когда был в игре (или только имя, если игрок скрыл профиль)',
        params: PlayerNameParams,
        response: { 200: PlayerProfile, ...errorReplies(400, 404) },
      },
      handler: async (req) => publicProfile(ctx.db, req.params.name),
    });

    app.get('/api/user/:username/profile', {
      config: { access: 'public' },
      schema: {
        tags: ['Аккаунты'],
        summary:
          'Краткий открытый профиль игрока: имя, UUID, роль, дата регистрации и блокировка, если она действует (или только имя, если игрок скрыл профиль)',
        params: ProfileParams,
        response: { 200: PublicProfile, ...errorReplies(400, 404) },
      },
      handler: async (req) => shortProfile(ctx.db, req.params.username),
    });

    app.get('/api/home/showcase', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Витрина главной: последние покупки и топ пополнений месяца (только имена; null — виджет выключен)',
        response: { 200: HomeShowcase },
      },
      handler: async () => homeShowcase(),
    });

    app.get('/api/user/privacy', {
      config: { access: 'user' },
      schema: { tags, summary: 'Скрыт ли мой открытый профиль', response: { 200: PlayerPrivacy, ...errorReplies(401) } },
      handler: async (req) => privacyOf(ctx.db, userOf(req).id),
    });

    app.put('/api/user/privacy', {
      config: { access: 'user' },
      schema: {
        tags,
        summary:
          'Скрыть или открыть мой профиль: скрытого игрока открытые страницы сайта не называют (только имя там, где о нём спросили по имени)',
        body: PlayerPrivacy,
        response: { 200: PlayerPrivacy, ...errorReplies(400, 401) },
      },
      handler: async (req) => {
        const result = await setPrivacy(ctx.db, userOf(req).id, req.body.hidden);
        cached = null;
        await privacyChanged.run(ctx, userOf(req).id);
        return result;
      },
    });

    app.get('/api/admin/home-settings', {
      config: { access: 'admin', permission: 'settings' },
      schema: { tags, summary: 'Какие виджеты показывает главная', response: { 200: HomeSettings, ...errorReplies(401, 403) } },
      handler: async () => ctx.settings.get(HomeSettingsDoc),
    });

    app.put('/api/admin/home-settings', {
      config: { access: 'admin', permission: 'settings' },
      schema: {
        tags,
        summary: 'Включить или выключить виджеты главной',
        body: HomeSettingsPatch,
        response: { 200: HomeSettings, ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => {
        await ctx.settings.set(HomeSettingsDoc, req.body, { actorId: userOf(req).id });
        cached = null;
        return ctx.settings.get(HomeSettingsDoc);
      },
    });
  };
}
