import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';

/** What a write does to its table: rows added only, or rows changed or removed (raw SQL counts as the latter). */
export type WriteKind = 'insert' | 'change';
type Listener = (table: string, kind: WriteKind) => void;

interface NodeLike {
  kind?: string;
  table?: unknown;
  into?: unknown;
  node?: unknown;
  from?: { froms?: readonly unknown[] };
  sqlFragments?: readonly string[];
}

function tableName(node: unknown): string | undefined {
  const n = node as (NodeLike & { table?: { identifier?: { name?: string } } }) | undefined;
  if (n?.kind === 'AliasNode') return tableName(n.node);
  return n?.kind === 'TableNode' ? n.table?.identifier?.name : undefined;
}

const RAW_WRITE = /\b(?:update|insert\s+into|delete\s+from)\s+"?(\w+)/gi;

/** Whether a query only adds rows: an insert without DO UPDATE, OR REPLACE or a data-changing WITH. */
function insertOnly(root: RootOperationNode): boolean {
  const node = root as NodeLike & {
    onConflict?: { updates?: unknown };
    onDuplicateKey?: unknown;
    replace?: boolean;
    orAction?: unknown;
    with?: unknown;
  };
  return (
    node.kind === 'InsertQueryNode' && !node.onConflict?.updates && !node.onDuplicateKey && !node.replace && !node.orAction && !node.with
  );
}

/** The tables a query writes to (built queries and raw `sql` alike). */
export function writtenTables(root: RootOperationNode): string[] {
  const node = root as NodeLike;
  switch (node.kind) {
    case 'UpdateQueryNode':
      return [tableName(node.table)].filter((t) => t !== undefined);
    case 'InsertQueryNode':
      return [tableName(node.into)].filter((t) => t !== undefined);
    case 'DeleteQueryNode':
      return (node.from?.froms ?? []).map(tableName).filter((t) => t !== undefined);
    case 'RawNode':
      return [...(node.sqlFragments ?? []).join(' ').matchAll(RAW_WRITE)].map((m) => m[1]!.toLowerCase());
    default:
      return [];
  }
}

/**
 * Tells listeners about every write made through the database handle, before it runs and again
 * after (so a cache can drop what a reader fetched in between). Writes by other processes are
 * not seen: on PostgreSQL those are announced by triggers (see migration 2026112250).
 */
export class WriteWatch implements KyselyPlugin {
  private readonly listeners = new Set<Listener>();
  private readonly pending = new WeakMap<object, { tables: string[]; kind: WriteKind }>();

  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(tables: string[], kind: WriteKind): void {
    for (const table of tables) for (const listener of this.listeners) listener(table, kind);
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (this.listeners.size > 0) {
      const tables = writtenTables(args.node);
      if (tables.length > 0) {
        const kind = insertOnly(args.node) ? 'insert' : 'change';
        this.pending.set(args.queryId, { tables, kind });
        this.emit(tables, kind);
      }
    }
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const write = this.pending.get(args.queryId);
    if (write) this.emit(write.tables, write.kind);
    return args.result;
  }
}
