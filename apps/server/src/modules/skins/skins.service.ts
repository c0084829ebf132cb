import { SKIN_TEXTS, SkinModel, type SkinInfo } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import { badRequest, conflict, HttpError, notFound } from '../../lib/errors.ts';
import { drawDefaultSkin } from '../../lib/skin/default-skin.ts';
import { BufferCache } from '../../lib/skin/lru-cache.ts';
import { decodePng, encodePng, pixelHash, readSkin, renderHead, SkinError, type Rgba } from '../../lib/skin/skin-image.ts';
import type { User } from '../users/users.repo.ts';
import * as repo from './skins.repo.ts';

/** Uploads per player in a rate-limit window: plenty for trying skins on, too few to churn storage. */
const UPLOADS_PER_WINDOW = 30;
/** Rendered heads, skin files and decoded pixels kept in memory; entries never go stale (keyed by hash). */
const CACHE_BYTES = 32 * 1024 * 1024;

/** An image answer: the bytes are made only when the client does not already hold this ETag. */
export interface SkinImage {
  etag: string;
  /** The version the URL must carry for the answer to be cacheable for good. */
  version: string;
  body: () => Promise<Buffer>;
}

const versionOf = (hash: string) => hash.slice(0, 16);

function skinError(err: unknown): unknown {
  if (!(err instanceof SkinError)) return err;
  switch (err.problem) {
    case 'too-big':
      return new HttpError(413, SKIN_TEXTS.tooBig, { code: 'file_too_large', field: 'skin' });
    case 'not-png':
      return new HttpError(415, SKIN_TEXTS.notPng, { code: 'not_png', field: 'skin' });
    case 'animated':
      return new HttpError(415, SKIN_TEXTS.animated, { code: 'animated_png', field: 'skin' });
    case 'bad-size':
      return badRequest(SKIN_TEXTS.badSize(err.width, err.height), { code: 'bad_skin_size', field: 'skin' });
    case 'broken':
      return badRequest(SKIN_TEXTS.broken, { code: 'broken_image', field: 'skin' });
  }
}

export function createSkinService(ctx: AppContext) {
  const cache = new BufferCache(CACHE_BYTES);
  const defaultRgba = drawDefaultSkin();
  const defaultSkin: repo.WornSkin = {
    hash: pixelHash(defaultRgba),
    width: defaultRgba.width,
    height: defaultRgba.height,
    model: 'default',
  };
  cache.set(`r:${defaultSkin.hash}`, defaultRgba.data);

  async function png(skin: repo.WornSkin): Promise<Buffer> {
    if (skin.hash === defaultSkin.hash) return cache.getOrMake(`s:${skin.hash}`, () => encodePng(defaultRgba));
    return cache.getOrMake(`s:${skin.hash}`, async () => {
      const file = await repo.skinPng(ctx.db, skin.hash);
      if (!file) throw notFound('Скин не найден');
      return file;
    });
  }

  async function pixels(skin: repo.WornSkin): Promise<Rgba> {
    const data = await cache.getOrMake(`r:${skin.hash}`, async () => (await decodePng(await png(skin))).data);
    return { width: skin.width, height: skin.height, data };
  }

  function info(username: string, skin: repo.WornSkin | null, base: string): SkinInfo {
    const worn = skin ?? defaultSkin;
    const v = versionOf(worn.hash);
    return {
      username,
      custom: skin !== null,
      model: worn.model,
      width: worn.width,
      height: worn.height,
      version: v,
      skin_url: `${base}/skin.png?v=${v}`,
      head_url: `${base}/head?v=${v}`,
    };
  }

  /**
   * Puts the skin on the player, storing the file only if no one has uploaded the same pixels
   * before. Returns the hash the player wore until now.
   */
  function wearSkin(userId: number, skin: Parameters<typeof repo.storeSkin>[1], model: SkinModel): Promise<string | null> {
    const now = Date.now();
    return ctx.db.transaction().execute(async (trx) => {
      const before = await repo.wornSkinHash(trx, userId);
      await repo.storeSkin(trx, skin, now);
      await repo.putOnSkin(trx, userId, skin.hash, model, now);
      return before;
    });
  }

  // Both lookups go through the user cache: heads are asked for far more often than skins change.
  const wornSkin = async (userId: number): Promise<repo.WornSkin | null> =>
    (await ctx.userCache.get(`skin:${userId}`, () => repo.findWornSkin(ctx.db, userId))) ?? null;

  async function player(username: string): Promise<repo.Player> {
    const found = await ctx.userCache.get(
      `player:${username.toLowerCase()}`,
      async () => (await repo.findPlayer(ctx.db, username)) ?? undefined,
    );
    if (!found) throw notFound(SKIN_TEXTS.playerNotFound);
    return found;
  }

  const skinFile = (skin: repo.WornSkin): SkinImage => ({
    etag: `"${versionOf(skin.hash)}"`,
    version: versionOf(skin.hash),
    body: () => png(skin),
  });

  const head = (skin: repo.WornSkin, size: number): SkinImage => ({
    etag: `"${versionOf(skin.hash)}-${size}"`,
    version: versionOf(skin.hash),
    body: () => cache.getOrMake(`h:${skin.hash}:${size}`, async () => encodePng(renderHead(await pixels(skin), size))),
  });

  return {
    /** Counts an upload try: over the limit it is refused before its file is read. */
    admitUpload: (user: User) => ctx.limiter.hit(`skin:upload:${user.id}`, UPLOADS_PER_WINDOW),

    /** Wears an uploaded file (its try counted by admitUpload first). */
    async upload(user: User, file: Buffer, modelField: string | undefined): Promise<SkinInfo> {
      let chosen: SkinModel | undefined;
      if (modelField !== undefined) {
        const parsed = SkinModel.safeParse(modelField);
        if (!parsed.success) throw badRequest(parsed.error.issues[0]?.message ?? SKIN_TEXTS.badForm, { code: 'invalid', field: 'model' });
        chosen = parsed.data;
      }
      const skin = await readSkin(file).catch((err: unknown) => {
        throw skinError(err);
      });
      const model = chosen ?? skin.model;
      const before = await wearSkin(user.id, skin, model);
      cache.set(`s:${skin.hash}`, skin.png);
      if (before && before !== skin.hash) await repo.deleteUnusedSkin(ctx.db, before);
      return info(user.username, { hash: skin.hash, width: skin.width, height: skin.height, model }, '/api/user');
    },

    async setModel(user: User, model: SkinModel): Promise<SkinInfo> {
      if (!(await repo.setModel(ctx.db, user.id, model))) throw conflict(SKIN_TEXTS.noCustomSkin, { code: 'no_custom_skin' });
      return info(user.username, await wornSkin(user.id), '/api/user');
    },

    async ownInfo(user: User): Promise<SkinInfo> {
      return info(user.username, await wornSkin(user.id), '/api/user');
    },

    async playerInfo(username: string): Promise<SkinInfo> {
      const p = await player(username);
      return info(p.username, p.skin, `/api/user/${p.username}`);
    },

    async ownImage(user: User, kind: 'skin' | 'head', size: number): Promise<SkinImage> {
      const skin = (await wornSkin(user.id)) ?? defaultSkin;
      return kind === 'skin' ? skinFile(skin) : head(skin, size);
    },

    async playerImage(username: string, kind: 'skin' | 'head', size: number): Promise<SkinImage> {
      const skin = (await player(username)).skin ?? defaultSkin;
      return kind === 'skin' ? skinFile(skin) : head(skin, size);
    },
  };
}
