import type { z } from 'zod';
import type { Config } from '../config.ts';
import type { Db, DbKind } from '../db/index.ts';
import { badRequest } from './errors.ts';
import type { NotifyChannel } from './notify-channel.ts';

const CHANNEL = 'kubik_settings';

/** A named settings document: its zod object schema and its defaults (from the environment). */
export interface SettingsDoc<S extends z.ZodObject> {
  /** Primary key in the settings table, e.g. 'site', 'payments'. */
  key: string;
  schema: S;
  /** What applies where the owner set nothing; environment variables feed these. */
  defaults: (config: Readonly<Config>) => z.input<S>;
}

/** Declares a settings document (typing helper; nothing is stored until set()). */
export function defineSettings<S extends z.ZodObject>(doc: SettingsDoc<S>): SettingsDoc<S> {
  return doc;
}

/** Records a settings change in the caller's transaction; app.ts passes the audit log's writer. */
export type SettingsAudit = (trx: Db, entry: { actorId: number | null; key: string; before: unknown; after: unknown }) => Promise<void>;

/**
 * Site settings the owner edits in the browser (ctx.settings). Only what the owner set is
 * stored, as JSON in `settings` (key, value, updated_at); reading merges it over the defaults
 * and parses it with the document's schema. Values are cached in memory and dropped on every
 * instance after a change (the shared notification channel); while the channel is down nothing
 * is cached.
 */
export class SettingsStore {
  private readonly cache = new Map<string, unknown>();
  private readonly generations = new Map<string, number>();
  private readonly listeners = new Map<string, Set<() => void>>();

  constructor(
    private readonly db: Db,
    private readonly dbKind: DbKind,
    private readonly config: Readonly<Config>,
    private readonly channel: NotifyChannel,
    private readonly audit?: SettingsAudit,
    private readonly log?: { warn(obj: object, msg: string): void },
  ) {
    channel.on(CHANNEL, (key) => this.changed(key));
    channel.onDown(() => {
      for (const key of [...this.cache.keys()]) this.changed(key);
    });
  }

  /** The document's current value: the owner's choices over the defaults. */
  async get<S extends z.ZodObject>(doc: SettingsDoc<S>): Promise<z.output<S>> {
    if (this.channel.up && this.cache.has(doc.key)) return this.cache.get(doc.key) as z.output<S>;
    const generation = this.generations.get(doc.key) ?? 0;
    const row = await this.db.selectFrom('settings').select('value').where('key', '=', doc.key).executeTakeFirst();
    const value = this.resolve(doc, row ? parseStored(row.value) : {});
    if (this.channel.up && (this.generations.get(doc.key) ?? 0) === generation) this.cache.set(doc.key, value);
    return value;
  }

  /** Only what the owner set (no defaults); for a settings form that shows which fields are overridden. */
  async stored<S extends z.ZodObject>(doc: SettingsDoc<S>): Promise<Partial<z.input<S>>> {
    const row = await this.db.selectFrom('settings').select('value').where('key', '=', doc.key).executeTakeFirst();
    return (row ? parseStored(row.value) : {}) as Partial<z.input<S>>;
  }

  /**
   * Changes some fields (a field set to undefined returns to its default), in one transaction
   * with an audit row; every instance sees the change at once. Refuses a value the schema does
   * not accept (400, code 'invalid', field). Returns the new value. `patch` may be a function of
   * what is stored (and of the value that applies now, defaults included), called inside the
   * transaction with the row locked: a change that depends on the stored value (or refuses, by
   * throwing) cannot race another save.
   */
  async set<S extends z.ZodObject>(
    doc: SettingsDoc<S>,
    patchOf: Partial<z.input<S>> | ((stored: Partial<z.input<S>>, current: z.output<S>) => Partial<z.input<S>>),
    options: { actorId: number | null },
  ): Promise<z.output<S>> {
    const value = await this.db.transaction().execute(async (trx) => {
      const now = Date.now();
      await trx
        .insertInto('settings')
        .values({ key: doc.key, value: '{}', updated_at: now })
        .onConflict((oc) => oc.column('key').doNothing())
        .execute();
      // Two admins saving different fields at once must not undo each other.
      let read = trx.selectFrom('settings').select('value').where('key', '=', doc.key);
      if (this.dbKind === 'pg') read = read.forUpdate();
      const before = parseStored((await read.executeTakeFirstOrThrow()).value);
      const patch = typeof patchOf === 'function' ? patchOf({ ...before } as Partial<z.input<S>>, this.resolve(doc, before)) : patchOf;
      const after: Record<string, unknown> = { ...before };
      for (const [k, v] of Object.entries(patch)) {
        if (v === undefined) delete after[k];
        else after[k] = v;
      }
      const parsed = this.parse(doc, after);
      await trx
        .updateTable('settings')
        .set({ value: JSON.stringify(after), updated_at: now })
        .where('key', '=', doc.key)
        .execute();
      await this.audit?.(trx, { actorId: options.actorId, key: doc.key, before, after });
      return parsed;
    });
    this.changed(doc.key);
    await this.channel.notify(CHANNEL, doc.key);
    return value;
  }

  /** Runs listener after the document changed here or on another instance (e.g. to drop a cached page). */
  subscribe(key: string, listener: () => void): () => void {
    let set = this.listeners.get(key);
    if (!set) this.listeners.set(key, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  private changed(key: string): void {
    this.cache.delete(key);
    this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
    for (const l of this.listeners.get(key) ?? []) l();
  }

  private parse<S extends z.ZodObject>(doc: SettingsDoc<S>, stored: Record<string, unknown>): z.output<S> {
    const result = doc.schema.safeParse({ ...doc.defaults(this.config), ...stored });
    if (result.success) return result.data;
    const issue = result.error.issues[0];
    throw badRequest(issue?.message ?? 'Некорректные настройки', {
      code: 'invalid',
      ...(issue && issue.path.length > 0 && { field: issue.path.join('.') }),
    });
  }

  /** Like parse(), but a stored field the schema no longer accepts (an older release wrote it) falls back to its default. */
  private resolve<S extends z.ZodObject>(doc: SettingsDoc<S>, stored: Record<string, unknown>): z.output<S> {
    const kept = { ...stored };
    for (;;) {
      const result = doc.schema.safeParse({ ...doc.defaults(this.config), ...kept });
      if (result.success) return result.data;
      const bad = new Set(result.error.issues.map((i) => String(i.path[0] ?? '')).filter((k) => k in kept));
      this.log?.warn({ key: doc.key, fields: [...bad] }, 'stored settings no longer fit their schema; their defaults apply');
      if (bad.size === 0) return doc.schema.parse(doc.defaults(this.config));
      for (const k of bad) delete kept[k];
    }
  }
}

function parseStored(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
