import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import type { GameAuth } from './game-auth.service.ts';
import * as repo from './game-auth.repo.ts';
import { createProfileKeys } from './profile-keys.service.ts';
import { YggdrasilError } from './yggdrasil.errors.ts';
import { YggError } from './yggdrasil.schemas.ts';

/** Where authlib-injector sends api.minecraftservices.com (`{api root}minecraftservices{path}`). */
export const SERVICES_PREFIX = '/minecraftservices';

const tags = ['Yggdrasil (authlib-injector)'];
const PublicKeyList = z.array(z.object({ publicKey: z.string() }));
const Certificate = z.object({
  keyPair: z.object({ privateKey: z.string(), publicKey: z.string() }),
  publicKeySignature: z.string(),
  publicKeySignatureV2: z.string(),
  expiresAt: z.string(),
  refreshedAfter: z.string(),
});
const Headers = z.object({ authorization: z.string().max(1024).optional() });

const invalidToken = () => new YggdrasilError(401, 'Unauthorized', 'Invalid token.');

/**
 * The part of Mojang's services API a game with authlib-injector asks the site for when the
 * metadata says `feature.enable_profile_key`: the player's chat-signing key pair, and the keys
 * servers verify with. Registered inside the Yggdrasil routes, so errors keep that API's shape.
 */
export function profileKeyRoutes(ctx: AppContext, game: GameAuth): FastifyPluginAsyncZod {
  const keys = createProfileKeys(ctx, game);
  return async (app) => {
    // The game posts no body but says application/json (authlib's MinecraftClient: an empty body
    // with "Content-Type: application/json; charset=utf-8"), which the site's JSON parser refuses;
    // other clients send nothing or {}. Nothing in the body is read here.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null, undefined));

    app.post('/player/certificates', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Ключи подписи чата игрока (Minecraft 1.19+): пара RSA, подписанная ключом сайта; токен игры в Authorization: Bearer',
        headers: Headers,
        response: { 200: Certificate, 401: YggError, 400: YggError, 413: YggError, 500: YggError },
      },
      handler: async (req, reply) => {
        const header = req.headers.authorization ?? '';
        const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
        if (!match) throw invalidToken();
        const found = await repo.findToken(ctx.db, 'yggdrasil', match[1]!);
        if (!found || !game.isValid(found.token, found.user)) throw invalidToken();
        reply.header('cache-control', 'no-store');
        return keys.certificate(found.user);
      },
    });

    app.get('/publickeys', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Открытые ключи, которыми игровые серверы проверяют подписи текстур и ключей игроков (base64 DER)',
        response: { 200: z.object({ profilePropertyKeys: PublicKeyList, playerCertificateKeys: PublicKeyList }), 500: YggError },
      },
      handler: () => keys.publicKeys(),
    });
  };
}
