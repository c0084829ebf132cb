import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { once } from 'node:events';
import {
  LAUNCHER_PLATFORM_INFO,
  LAUNCHER_PLATFORMS,
  LAUNCHER_TEXTS,
  type AdminLauncher,
  type AdminLauncherPlatform,
  type LauncherBuild,
  type LauncherLinkBody,
  type LauncherPlatform,
} from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import { HttpError } from '../../lib/errors.ts';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../../base/private-files.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { SiteSettingsDoc } from '../site/site.settings.ts';
import type { User } from '../users/users.repo.ts';
import * as repo from './launcher.repo.ts';
import type { LauncherBuildsTable } from './launcher.tables.ts';

/** The first bytes of each platform's file: a PE (MZ), an ELF (AppImage), a zip (jar); a .dmg keeps its mark at the end. */
const MAGIC: Partial<Record<LauncherPlatform, Buffer>> = {
  windows: Buffer.from('MZ'),
  linux: Buffer.from([0x7f, 0x45, 0x4c, 0x46]),
  jar: Buffer.from([0x50, 0x4b, 0x03, 0x04]),
};

/** The file as the owner uploaded it, read as a stream (never whole in memory). */
export interface LauncherUpload {
  filename: string;
  stream: Readable & { truncated?: boolean };
}

const downloadsDir = (ctx: AppContext) => path.join(ctx.config.dataDir, 'downloads');
const platformDir = (ctx: AppContext, platform: LauncherPlatform) => path.join(downloadsDir(ctx), 'launcher', platform);
export const launcherFileUrl = (platform: LauncherPlatform, fileName: string) =>
  `/downloads/launcher/${platform}/${encodeURIComponent(fileName)}`;

/**
 * The name the file is kept and offered under: the uploaded name's letters, digits, dots, dashes
 * and underscores (Latin only: the name ends up in a URL and on every system's disk), ending in
 * the platform's own extension.
 */
export function safeLauncherFileName(uploaded: string, platform: LauncherPlatform): string {
  const ext = LAUNCHER_PLATFORM_INFO[platform].ext;
  const base = path.basename(uploaded.replace(/\\/g, '/'));
  const stem = base.toLowerCase().endsWith(ext.toLowerCase()) ? base.slice(0, -ext.length) : base;
  const clean = stem
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[.-]+|[.-]+$/g, '')
    .slice(0, 100);
  return `${clean || 'Launcher'}${ext}`;
}

/** Whether a /downloads/… address names a file on this instance's disk; other addresses are taken as they are. */
function localFileMissing(ctx: AppContext, url: string): boolean {
  if (!url.startsWith('/downloads/')) return false;
  let rel: string;
  try {
    rel = decodeURIComponent(url.slice('/downloads/'.length).split(/[?#]/)[0]!);
  } catch {
    return true;
  }
  const root = downloadsDir(ctx);
  const file = path.resolve(root, rel);
  if (!file.startsWith(root + path.sep)) return true;
  try {
    return !fs.statSync(file).isFile();
  } catch {
    return true;
  }
}

function buildOf(row: repo.LauncherBuildRow): LauncherBuild | null {
  if (row.kind === 'file' && row.file_name)
    return {
      platform: row.platform,
      version: row.version,
      url: launcherFileUrl(row.platform, row.file_name),
      kind: 'file',
      file_name: row.file_name,
      size: row.size === null ? null : Number(row.size),
      sha256: row.sha256,
      uploaded_at: new Date(Number(row.updated_at)).toISOString(),
    };
  if (row.kind === 'link' && row.url)
    return {
      platform: row.platform,
      version: row.version,
      url: row.url,
      kind: 'link',
      file_name: null,
      size: null,
      sha256: null,
      uploaded_at: null,
    };
  return null;
}

const refused = (status: number, text: string, code: 'not_launcher' | 'file_too_large' | 'no_file') =>
  new HttpError(status, text, { code, field: 'file' });

export function createLauncherService(ctx: AppContext) {
  /** Every platform as the admin sees it: this page's entry, else the link of Настройки. */
  async function platforms(): Promise<AdminLauncherPlatform[]> {
    const [rows, site] = await Promise.all([repo.listBuilds(ctx.db), ctx.settings.get(SiteSettingsDoc)]);
    const fromSettings: Partial<Record<LauncherPlatform, string>> = {
      windows: site.launcher_windows_url,
      linux: site.launcher_linux_url,
    };
    return LAUNCHER_PLATFORMS.map((platform): AdminLauncherPlatform => {
      const row = rows.find((r) => r.platform === platform);
      if (row) {
        const build = buildOf(row);
        if (!build) return { platform, source: 'hidden', build: null, missing: false };
        return { platform, source: build.kind, build, missing: localFileMissing(ctx, build.url) };
      }
      const url = fromSettings[platform];
      if (!url) return { platform, source: 'none', build: null, missing: false };
      const build: LauncherBuild = {
        platform,
        version: site.launcher_version,
        url,
        kind: 'link',
        file_name: null,
        size: null,
        sha256: null,
        uploaded_at: null,
      };
      return { platform, source: 'settings', build, missing: localFileMissing(ctx, url) };
    });
  }

  async function save(
    actor: User,
    platform: LauncherPlatform,
    values: Omit<LauncherBuildsTable, 'platform' | 'updated_by' | 'updated_at'>,
    action: string,
  ) {
    return ctx.db.transaction().execute(async (trx) => {
      const before = await repo.findEntry(trx, platform);
      await repo.saveEntry(trx, platform, { ...values, updated_by: actor.id, updated_at: Date.now() });
      await recordAudit(trx, { actorId: actor.id, action, entity: 'launcher', entityId: platform, before: before ?? null, after: values });
      return before;
    });
  }

  /** Removes an uploaded file this platform no longer offers (the new one is in place by now). */
  function dropOldFile(platform: LauncherPlatform, before: { kind: string; file_name: string | null } | undefined, keep?: string) {
    if (before?.kind !== 'file' || !before.file_name || before.file_name === keep) return;
    fs.rm(path.join(platformDir(ctx, platform), before.file_name), { force: true }, () => {});
  }

  return {
    /** /help: the builds that can be downloaded; a file missing from this instance's disk is not offered. */
    async list(): Promise<LauncherBuild[]> {
      return (await platforms()).filter((p) => p.build && !p.missing).map((p) => p.build!);
    },

    async admin(): Promise<AdminLauncher> {
      return { platforms: await platforms(), max_bytes: ctx.config.launcher.maxBytes };
    },

    /**
     * Streams the upload to a temporary file beside its final place, hashing and counting on the
     * way; only a whole file of the right kind replaces the platform's build (a rename), and the
     * previous file is removed after the database names the new one.
     */
    async upload(actor: User, platform: LauncherPlatform, version: string, upload: LauncherUpload): Promise<LauncherBuild> {
      const info = LAUNCHER_PLATFORM_INFO[platform];
      if (!upload.filename.toLowerCase().endsWith(info.ext.toLowerCase())) {
        upload.stream.resume();
        throw refused(400, LAUNCHER_TEXTS.wrongType(platform), 'not_launcher');
      }
      const fileName = safeLauncherFileName(upload.filename, platform);
      const dir = platformDir(ctx, platform);
      ensurePrivateDir(dir);
      const temp = path.join(dir, `.upload-${randomUUID()}.part`);
      const hash = createHash('sha256');
      let size = 0;
      let head = Buffer.alloc(0);
      const tap = new Transform({
        transform(chunk: Buffer, _enc, done) {
          hash.update(chunk);
          size += chunk.length;
          if (head.length < 8) head = Buffer.concat([head, chunk.subarray(0, 8 - head.length)]);
          done(null, chunk);
        },
      });
      const out = fs.createWriteStream(temp, { mode: PRIVATE_FILE_MODE, flags: 'wx' });
      try {
        await pipeline(upload.stream, tap, out);
        if (upload.stream.truncated) throw refused(413, LAUNCHER_TEXTS.tooBig(ctx.config.launcher.maxBytes), 'file_too_large');
        if (size === 0) throw refused(400, LAUNCHER_TEXTS.noFile, 'no_file');
        const magic = MAGIC[platform];
        if (magic && !head.subarray(0, magic.length).equals(magic))
          throw refused(400, LAUNCHER_TEXTS.notExecutable(platform), 'not_launcher');
        await fs.promises.rename(temp, path.join(dir, fileName));
      } catch (err) {
        // A write stream destroyed before its file was open still creates the file: remove it once the stream closed.
        if (!out.closed) await once(out, 'close').catch(() => {});
        await fs.promises.rm(temp, { force: true });
        if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE')
          throw refused(413, LAUNCHER_TEXTS.tooBig(ctx.config.launcher.maxBytes), 'file_too_large');
        throw err;
      }
      const sha256 = hash.digest('hex');
      const before = await save(
        actor,
        platform,
        { kind: 'file', version, url: null, file_name: fileName, size, sha256 },
        'launcher.upload',
      );
      dropOldFile(platform, before, fileName);
      return buildOf({ platform, kind: 'file', version, url: null, file_name: fileName, size, sha256, updated_at: Date.now() })!;
    },

    async link(actor: User, platform: LauncherPlatform, body: LauncherLinkBody): Promise<void> {
      const before = await save(
        actor,
        platform,
        { kind: 'link', version: body.version, url: body.url, file_name: null, size: null, sha256: null },
        'launcher.link',
      );
      dropOldFile(platform, before);
    },

    /** Hides the platform on /help (whatever Настройки say). */
    async hide(actor: User, platform: LauncherPlatform): Promise<void> {
      const before = await save(
        actor,
        platform,
        { kind: 'hidden', version: '', url: null, file_name: null, size: null, sha256: null },
        'launcher.hide',
      );
      dropOldFile(platform, before);
    },

    /** Forgets this page's entry: the platform follows Настройки (LAUNCHER_* variables) again. */
    async reset(actor: User, platform: LauncherPlatform): Promise<void> {
      const before = await ctx.db.transaction().execute(async (trx) => {
        const row = await repo.deleteEntry(trx, platform);
        if (row)
          await recordAudit(trx, { actorId: actor.id, action: 'launcher.reset', entity: 'launcher', entityId: platform, before: row });
        return row;
      });
      dropOldFile(platform, before);
    },
  };
}
