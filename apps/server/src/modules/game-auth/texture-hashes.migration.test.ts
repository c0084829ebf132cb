import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodePng, pixelHash, type Rgba } from '../../lib/skin/skin-image.ts';
import { blank, fill, testSkin, toPng } from '../../../../../testing/skin-images.ts';
import { databaseBefore } from '../../test/database.ts';
import { dbKinds } from '../../test/test-app.ts';
import * as textureHashes from './texture-hashes.migration.ts';

/** How textures were named before issue 27. */
const oldHash = ({ width, height, data }: Rgba) => createHash('sha256').update(`${width}x${height}:`).update(data).digest('hex');

const MIGRATION = '2026112627_texture_hashes';

describe.each(dbKinds)('moving stored textures to the new hash on %s', (kind) => {
  it('renames skins and capes, merges twins, keeps the old names answering, and can run again', async () => {
    const before = await databaseBefore(kind, MIGRATION, { workers: false });
    try {
      const { db } = before;
      const now = Date.now();
      const users: Record<string, number> = {};
      for (const name of ['Steve', 'Alex', 'Notch']) users[name] = await before.addUser(name);
      const addSkin = async (img: Rgba, at: number) => {
        const hash = oldHash(img);
        await db
          .insertInto('skins')
          .values({ hash, png: await toPng(img), width: img.width, height: img.height, model: 'default', created_at: at })
          .execute();
        return hash;
      };
      const steve = testSkin();
      // Alex's and Notch's skins differ only in the colour under transparent pixels: one texture now.
      const plain = testSkin({ body: [30, 60, 90, 255] });
      const hidden = fill(testSkin({ body: [30, 60, 90, 255] }), 32, 0, 8, 8, [250, 0, 250, 0]);
      const oldSkins = { steve: await addSkin(steve, now), alex: await addSkin(plain, now + 1), notch: await addSkin(hidden, now + 2) };
      expect(new Set(Object.values(oldSkins)).size).toBe(3);
      for (const [name, hash] of [
        ['Steve', oldSkins.steve],
        ['Alex', oldSkins.alex],
        ['Notch', oldSkins.notch],
      ] as const)
        await db.insertInto('user_skins').values({ user_id: users[name], skin_hash: hash, model: 'default', updated_at: now }).execute();

      const addCape = async (title: string, img: Rgba) => {
        const row = await db
          .insertInto('capes')
          .values({ title, hash: oldHash(img), png: await toPng(img), width: 64, height: 32, created_at: now })
          .returning('id')
          .executeTakeFirstOrThrow();
        return { id: row.id as number, hash: oldHash(img) };
      };
      const red = await addCape('Красный', fill(blank(64, 32), 0, 0, 22, 17, [200, 30, 30, 255]));
      const blue = await addCape('Синий', fill(blank(64, 32), 0, 0, 22, 17, [30, 30, 200, 255]));
      const blueAgain = await addCape('Синий 2', fill(fill(blank(64, 32), 0, 0, 22, 17, [30, 30, 200, 255]), 30, 20, 4, 4, [9, 9, 9, 0]));
      const grant = (capeId: number, userId: number) =>
        db.insertInto('cape_grants').values({ cape_id: capeId, user_id: userId, tier_id: null, created_at: now }).execute();
      await grant(red.id, users.Steve!);
      await grant(blue.id, users.Alex!);
      await grant(blueAgain.id, users.Alex!);
      await grant(blueAgain.id, users.Notch!);
      await db.insertInto('user_capes').values({ user_id: users.Steve, cape_id: red.id, updated_at: now }).execute();
      await db.insertInto('user_capes').values({ user_id: users.Notch, cape_id: blueAgain.id, updated_at: now }).execute();

      await before.migrateRest();

      const skins = await db.selectFrom('skins').select(['hash', 'png']).execute();
      expect(skins).toHaveLength(2);
      for (const s of skins) expect(s.hash).toBe(pixelHash(await decodePng(Buffer.from(s.png))));
      const worn = Object.fromEntries(
        (await db.selectFrom('user_skins').select(['user_id', 'skin_hash']).execute()).map((r) => [r.user_id, r.skin_hash]),
      );
      expect(worn[users.Steve!]).toBe(pixelHash(steve));
      expect(worn[users.Alex!]).toBe(pixelHash(plain));
      expect(worn[users.Notch!]).toBe(pixelHash(plain));
      // The colour under transparent pixels is gone from the stored file too.
      const stored = await decodePng(Buffer.from(skins.find((s) => s.hash === pixelHash(plain))!.png));
      expect(stored.data.equals(plain.data)).toBe(true);

      const capes = await db.selectFrom('capes').select(['id', 'title', 'hash']).orderBy('id').execute();
      expect(capes.map((c) => c.title)).toEqual(['Красный', 'Синий']);
      expect(capes.map((c) => c.hash)).toEqual([
        pixelHash(fill(blank(64, 32), 0, 0, 22, 17, [200, 30, 30, 255])),
        pixelHash(fill(blank(64, 32), 0, 0, 22, 17, [30, 30, 200, 255])),
      ]);
      const grants = await db.selectFrom('cape_grants').select(['cape_id', 'user_id']).orderBy('user_id').execute();
      expect(grants).toEqual([
        { cape_id: red.id, user_id: users.Steve },
        { cape_id: blue.id, user_id: users.Alex },
        { cape_id: blue.id, user_id: users.Notch },
      ]);
      expect((await db.selectFrom('user_capes').select(['user_id', 'cape_id']).orderBy('user_id').execute()).map((r) => r.cape_id)).toEqual(
        [red.id, blue.id],
      );

      const aliases = Object.fromEntries(
        (await db.selectFrom('texture_aliases').select(['old_hash', 'new_hash']).execute()).map((r) => [r.old_hash, r.new_hash]),
      );
      expect(aliases).toEqual({
        [oldSkins.steve]: pixelHash(steve),
        [oldSkins.alex]: pixelHash(plain),
        [oldSkins.notch]: pixelHash(plain),
        [red.hash]: capes[0]!.hash,
        [blue.hash]: capes[1]!.hash,
        [blueAgain.hash]: capes[1]!.hash,
      });

      // Run again (as after a run cut short): nothing moves.
      await textureHashes.up(db);
      expect((await db.selectFrom('skins').select('hash').orderBy('hash').execute()).map((r) => r.hash)).toEqual(
        skins.map((s) => s.hash).sort(),
      );
      const again = Object.fromEntries(
        (await db.selectFrom('texture_aliases').select(['old_hash', 'new_hash']).execute()).map((r) => [r.old_hash, r.new_hash]),
      );
      expect(again).toEqual(aliases);

      // The site answers both names with the same file, as image/png.
      const app = await before.start();
      for (const [old, current] of Object.entries(aliases)) {
        const a = await app.inject({ method: 'GET', url: `/textures/${old}` });
        const b = await app.inject({ method: 'GET', url: `/textures/${current}` });
        expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
        expect(a.headers['content-type']).toBe('image/png');
        expect(b.headers['content-type']).toBe('image/png');
        expect(a.rawPayload.equals(b.rawPayload)).toBe(true);
        expect(pixelHash(await decodePng(a.rawPayload))).toBe(current);
      }
      expect((await app.inject({ method: 'GET', url: `/textures/${'0'.repeat(64)}` })).statusCode).toBe(404);
    } finally {
      await before.close();
    }
  });
});
