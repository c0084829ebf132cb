import { CAPE_TEXTS, CapeTitle, type AdminCape, type Cape, type CapeGrantBody, type MyCapes } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import { badRequest, conflict, HttpError, isUniqueViolation, notFound } from '../../lib/errors.ts';
import { readCape } from '../../lib/skin/cape-image.ts';
import { SkinError } from '../../lib/skin/skin-image.ts';
import { recordAudit } from '../audit/audit.service.ts';
import type { User } from '../users/users.repo.ts';
import * as repo from './capes.repo.ts';

function capeError(err: unknown): unknown {
  if (!(err instanceof SkinError)) return err;
  switch (err.problem) {
    case 'too-big':
      return new HttpError(413, CAPE_TEXTS.tooBig, { code: 'file_too_large', field: 'cape' });
    case 'not-png':
      return new HttpError(415, CAPE_TEXTS.notPng, { code: 'not_png', field: 'cape' });
    case 'animated':
      return new HttpError(415, CAPE_TEXTS.animated, { code: 'not_png', field: 'cape' });
    case 'bad-size':
      return badRequest(CAPE_TEXTS.badSize(err.width, err.height), { code: 'bad_size', field: 'cape' });
    case 'broken':
      return badRequest(CAPE_TEXTS.broken, { code: 'broken_png', field: 'cape' });
  }
}

/** Whom a grant names, for the audit log. */
const holder = (g: { user_id: number | null; username: string | null; tier_title: string | null }) =>
  g.user_id ? { player: g.username } : { tier: g.tier_title };

const toCape = (c: repo.CapeRow): Cape => ({ id: c.id, title: c.title, width: c.width, height: c.height, url: `/textures/${c.hash}` });

export function createCapeService(ctx: AppContext) {
  async function adminCape(id: number): Promise<AdminCape> {
    const cape = await repo.findCape(ctx.db, id);
    if (!cape) throw notFound(CAPE_TEXTS.notFound);
    const grants = (await repo.listGrants(ctx.db)).filter((g) => g.cape_id === id);
    return { ...toCape(cape), created_at: cape.created_at, grants: grants.map(({ cape_id: _c, ...g }) => g) };
  }

  async function myCapes(userId: number): Promise<MyCapes> {
    const [capes, worn] = await Promise.all([repo.allowedCapes(ctx.db, userId), repo.wornCape(ctx.db, userId)]);
    return { capes: capes.map(toCape), selected: worn?.id ?? null };
  }

  return {
    async list(): Promise<AdminCape[]> {
      const [capes, grants] = await Promise.all([repo.listCapes(ctx.db), repo.listGrants(ctx.db)]);
      return capes.map((c) => ({
        ...toCape(c),
        created_at: c.created_at,
        grants: grants.filter((g) => g.cape_id === c.id).map(({ cape_id: _c, ...g }) => g),
      }));
    },

    async upload(admin: User, file: Buffer, titleField: string | undefined): Promise<AdminCape> {
      const title = CapeTitle.safeParse(titleField ?? '');
      if (!title.success) throw badRequest(title.error.issues[0]?.message ?? CAPE_TEXTS.titleRequired, { code: 'invalid', field: 'title' });
      const cape = await readCape(file).catch((err: unknown) => {
        throw capeError(err);
      });
      let id: number;
      try {
        id = await ctx.db.transaction().execute(async (trx) => {
          const capeId = await repo.insertCape(trx, {
            title: title.data,
            hash: cape.hash,
            png: cape.png,
            width: cape.width,
            height: cape.height,
            created_at: Date.now(),
          });
          await recordAudit(trx, {
            actorId: admin.id,
            action: 'cape.create',
            entity: 'cape',
            entityId: capeId,
            after: { title: title.data, width: cape.width, height: cape.height },
          });
          return capeId;
        });
      } catch (err) {
        if (isUniqueViolation(err)) {
          const same = (await repo.listCapes(ctx.db)).find((c) => c.hash === cape.hash);
          throw conflict(`Такой плащ уже загружен${same ? `: «${same.title}»` : ''}`, { code: 'cape_exists', field: 'cape' });
        }
        throw err;
      }
      return adminCape(id);
    },

    async rename(admin: User, id: number, title: string): Promise<AdminCape> {
      await ctx.db.transaction().execute(async (trx) => {
        const before = await repo.findCape(trx, id);
        if (!before) throw notFound(CAPE_TEXTS.notFound);
        await repo.renameCape(trx, id, title);
        await recordAudit(trx, {
          actorId: admin.id,
          action: 'cape.update',
          entity: 'cape',
          entityId: id,
          before: { title: before.title },
          after: { title },
        });
      });
      return adminCape(id);
    },

    async remove(admin: User, id: number): Promise<void> {
      await ctx.db.transaction().execute(async (trx) => {
        const before = await repo.findCape(trx, id);
        if (!before) throw notFound(CAPE_TEXTS.notFound);
        await repo.deleteCape(trx, id);
        await recordAudit(trx, { actorId: admin.id, action: 'cape.delete', entity: 'cape', entityId: id, before: { title: before.title } });
      });
    },

    async grant(admin: User, id: number, body: CapeGrantBody): Promise<AdminCape> {
      try {
        await ctx.db.transaction().execute(async (trx) => {
          const cape = await repo.findCape(trx, id);
          if (!cape) throw notFound(CAPE_TEXTS.notFound);
          let target: { user_id: number | null; tier_id: number | null; label: string };
          if ('username' in body) {
            const user = await repo.findLivePlayer(trx, body.username);
            if (!user) throw notFound(CAPE_TEXTS.playerNotFound, { code: 'player_not_found', field: 'username' });
            target = { user_id: user.id, tier_id: null, label: user.username };
          } else {
            const tier = await repo.findTier(trx, body.tier_id);
            if (!tier) throw notFound(CAPE_TEXTS.tierNotFound, { code: 'tier_not_found', field: 'tier_id' });
            target = { user_id: null, tier_id: tier.id, label: tier.title };
          }
          await repo.insertGrant(trx, { cape_id: id, user_id: target.user_id, tier_id: target.tier_id, created_at: Date.now() });
          await recordAudit(trx, {
            actorId: admin.id,
            action: 'cape.grant',
            entity: 'cape',
            entityId: id,
            after: holder({ user_id: target.user_id, username: target.label, tier_title: target.label }),
          });
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict(CAPE_TEXTS.alreadyGranted, { code: 'already_granted' });
        throw err;
      }
      return adminCape(id);
    },

    async revoke(admin: User, id: number, grantId: number): Promise<AdminCape> {
      await ctx.db.transaction().execute(async (trx) => {
        const grant = (await repo.listGrants(trx)).find((g) => g.id === grantId && g.cape_id === id);
        if (!grant) throw notFound(CAPE_TEXTS.grantNotFound);
        await repo.deleteGrant(trx, grantId);
        await recordAudit(trx, {
          actorId: admin.id,
          action: 'cape.revoke',
          entity: 'cape',
          entityId: id,
          before: holder(grant),
        });
      });
      return adminCape(id);
    },

    myCapes: (user: User) => myCapes(user.id),

    async choose(user: User, capeId: number | null): Promise<MyCapes> {
      if (capeId === null) {
        await repo.takeOffCape(ctx.db, user.id);
        return myCapes(user.id);
      }
      const allowed = await repo.allowedCapes(ctx.db, user.id);
      if (!allowed.some((c) => c.id === capeId))
        throw new HttpError(403, CAPE_TEXTS.notAllowed, { code: 'cape_not_granted', field: 'cape_id' });
      await repo.chooseCape(ctx.db, user.id, capeId, Date.now());
      return myCapes(user.id);
    },
  };
}
