import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useConfirm } from '../useConfirm.tsx';
import { ApiError } from '../../lib/api.ts';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { useNotify } from '../../providers/notifications.tsx';

type Text<A> = string | ((arg: A) => string);
const say = <A>(text: Text<A>, arg: A) => (typeof text === 'function' ? text(arg) : text);

export interface CrudTexts<T> {
  created: Text<unknown>;
  updated: Text<unknown>;
  removed: Text<unknown>;
  /** The toast after a refused save (the form shows the reason itself). */
  saveFailed: Text<ApiError>;
  removeFailed: Text<ApiError>;
  /** The question the confirmation dialog asks before a deletion. */
  confirmRemove: (item: T) => string;
}

export interface CrudOptions<T, B, L = T[]> {
  /** The list's query. */
  queryKey: QueryKey;
  /** The rows, or a page of them (L: e.g. { users, total }). */
  list: () => Promise<L>;
  /** While another page or search loads, keep showing the last one (server-side paging). */
  keepPrevious?: boolean;
  /** What a change makes stale (the list's key by default); the audit log always is. */
  refresh?: readonly QueryKey[];
  create: (body: B) => Promise<unknown>;
  update: (item: T, body: B) => Promise<unknown>;
  remove?: (item: T) => Promise<unknown>;
  texts: CrudTexts<T>;
  /** The server's answer as the admin reads it (the toast's and the form's text); as it comes by default. */
  errorText?: (err: ApiError) => string;
}

export interface Crud<T, B, L = T[]> {
  list: ReturnType<typeof useQuery<L>>;
  /** The open form: undefined when closed, null for a new record, else the record being edited. */
  editing: T | null | undefined;
  openNew(): void;
  openEdit(item: T): void;
  close(): void;
  /** For <Form onSubmit>: saves, toasts, refreshes and closes; on a refusal toasts and rejects with the ApiError for the form. */
  save(body: B): Promise<void>;
  /** Asks, then deletes, toasts and refreshes. */
  remove(item: T): void;
  removing: boolean;
  /** The confirmation dialog remove() asks in: render it once in the screen. */
  dialog: ReactNode;
}

const asApiError = (err: unknown) => (err instanceof ApiError ? err : new ApiError(0, ''));

/**
 * An admin list with its create / update / delete: the mutations every admin screen repeated,
 * with their toasts, invalidations (the list, what `refresh` names, the audit log) and the modal
 * that closes after a save.
 */
export function useCrud<T, B, L = T[]>({
  queryKey,
  list,
  keepPrevious = false,
  refresh,
  create,
  update,
  remove,
  texts,
  errorText = (e) => e.message,
}: CrudOptions<T, B, L>): Crud<T, B, L> {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey, queryFn: list, placeholderData: keepPrevious ? keepPreviousData : undefined });
  const [editing, setEditing] = useState<T | null | undefined>(undefined);
  const { confirm, dialog } = useConfirm();

  const invalidate = () => {
    for (const key of [...(refresh ?? [queryKey]), AUDIT_KEY]) void queryClient.invalidateQueries({ queryKey: key });
  };
  const readable = (err: unknown) => {
    const e = asApiError(err);
    return new ApiError(e.status, errorText(e), e.code, e.field);
  };

  const saving = useMutation({
    mutationFn: ({ item, body }: { item: T | null; body: B }) => (item === null ? create(body) : update(item, body)),
    onSettled: invalidate,
  });
  const removing = useMutation({
    mutationFn: (item: T) => remove!(item),
    onSuccess: (answer) => notify('success', say(texts.removed, answer)),
    onError: (err) => notify('danger', say(texts.removeFailed, readable(err))),
    onSettled: invalidate,
  });

  return {
    list: query,
    editing,
    openNew: () => setEditing(null),
    openEdit: (item) => setEditing(item),
    close: () => setEditing(undefined),
    async save(body) {
      const item = editing ?? null;
      let answer: unknown;
      try {
        answer = await saving.mutateAsync({ item, body });
      } catch (err) {
        const shown = readable(err);
        notify('danger', say(texts.saveFailed, shown));
        throw shown;
      }
      notify('success', say(item === null ? texts.created : texts.updated, answer));
      setEditing(undefined);
    },
    remove(item) {
      void confirm(texts.confirmRemove(item), { title: 'Удаление', confirmLabel: 'Удалить', danger: true }).then((yes) => {
        if (yes) removing.mutate(item);
      });
    },
    removing: removing.isPending,
    dialog,
  };
}
