import { CAPE_MAX_BYTES, CAPE_TEXTS, CapeUpdateBody, type AdminCape, type CapeGrant } from '@kubik/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState, type FormEvent } from 'react';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { DataTable, type Column } from '../../components/admin/DataTable.tsx';
import { RowActions } from '../../components/admin/RowMenu.tsx';
import { useCrud, type Crud } from '../../components/admin/useCrud.ts';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { TextField } from '../../components/form/fields.tsx';
import { Modal } from '../../components/Modal.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { ApiError } from '../../lib/api.ts';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { useNotify } from '../../providers/notifications.tsx';
import { useTitle } from '../../providers/title.ts';
import {
  ADMIN_CAPES_KEY,
  deleteCape,
  fetchAdminCapes,
  fetchTiers,
  grantCape,
  renameCape,
  revokeCape,
  TIERS_KEY,
  uploadCape,
} from './api.ts';
import './capes.css';

const holder = (g: CapeGrant) => (g.user_id !== null ? `игрок ${g.username}` : `донат «${g.tier_title}»`);

/** Админ-панель → Плащи: upload capes, give them to players or donate tiers, rename, delete. */
export default function AdminCapesPage() {
  useTitle('Админ-панель: плащи');
  const [uploading, setUploading] = useState(false);
  const crud = useCrud<AdminCape, CapeUpdateBody>({
    queryKey: ADMIN_CAPES_KEY,
    list: fetchAdminCapes,
    // New capes come from the upload form (a file, not a schema form); the list is only renamed and deleted here.
    create: () => Promise.reject(new Error('Плащи добавляются формой загрузки')),
    update: (cape, body) => renameCape(cape.id, body.title),
    remove: (cape) => deleteCape(cape.id),
    texts: {
      created: CAPE_TEXTS.uploaded,
      updated: 'Плащ сохранён',
      removed: 'Плащ удалён',
      saveFailed: 'Не удалось сохранить плащ',
      removeFailed: 'Не удалось удалить плащ',
      confirmRemove: (cape) => `Удалить плащ «${cape.title}»? Его снимут со всех, кто его носит.`,
    },
  });

  const columns: Column<AdminCape>[] = [
    { header: 'Вид', kind: 'media', cell: (c) => <img className="cape-texture" src={c.url} alt="" width={64} height={32} /> },
    { header: 'Название', kind: 'main', cell: (c) => c.title },
    { header: 'Размер', kind: 'num', cell: (c) => `${c.width}×${c.height}` },
    { header: 'Кому выдан', kind: 'clip', cell: (c) => (c.grants.length === 0 ? 'Никому' : c.grants.map(holder).join(', ')) },
    {
      header: 'Действия',
      kind: 'actions',
      cell: (c) => (
        <RowActions what={`плащ «${c.title}»`} onEdit={() => crud.openEdit(c)} onDelete={() => crud.remove(c)} busy={crud.removing} />
      ),
    },
  ];

  return (
    <AdminSection
      title="Плащи"
      actions={
        <button type="button" className="btn btn-primary" onClick={() => setUploading(true)}>
          Загрузить плащ
        </button>
      }
    >
      <QueryState
        query={crud.list}
        error="Не удалось загрузить плащи"
        empty="Плащей пока нет. Загрузите первый: PNG 64×32 (или HD), 22×17 или 46×23."
      >
        {(capes) => <DataTable label="Плащи" rows={capes} columns={columns} rowKey={(c) => c.id} />}
      </QueryState>
      <Modal open={uploading} title="Новый плащ" onClose={() => setUploading(false)}>
        {uploading && <UploadForm onDone={() => setUploading(false)} />}
      </Modal>
      <Modal open={crud.editing != null} title={crud.editing ? `Плащ «${crud.editing.title}»` : 'Плащ'} onClose={crud.close} wide>
        {crud.editing && <CapeEditor key={crud.editing.id} crud={crud} capeId={crud.editing.id} />}
      </Modal>
    </AdminSection>
  );
}

/** Title and PNG file; the server checks the size on the header and answers next to the field at fault. */
function UploadForm({ onDone }: { onDone: () => void }) {
  const ids = useId();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const fileInput = useRef<HTMLInputElement>(null);
  const [title, setTitle] = useState('');
  const [errors, setErrors] = useState<{ title?: string; cape?: string; form?: string }>({});
  const upload = useMutation({
    mutationFn: ({ file, name }: { file: File; name: string }) => uploadCape(file, name),
    onSuccess: (cape) => {
      void queryClient.invalidateQueries({ queryKey: ADMIN_CAPES_KEY });
      void queryClient.invalidateQueries({ queryKey: AUDIT_KEY });
      notify('success', `${CAPE_TEXTS.uploaded}: «${cape.title}»`);
      onDone();
    },
    onError: (err) => {
      const e = err instanceof ApiError ? err : new ApiError(0, '');
      const message = e.message || 'Не удалось загрузить плащ';
      setErrors(e.field === 'title' ? { title: message } : e.field === 'cape' ? { cape: message } : { form: message });
    },
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    const file = fileInput.current?.files?.[0];
    const next: typeof errors = {};
    if (!title.trim()) next.title = CAPE_TEXTS.titleRequired;
    if (!file) next.cape = CAPE_TEXTS.noFile.replace(' в поле «cape»', '');
    else if (file.type !== 'image/png') next.cape = CAPE_TEXTS.notPng;
    else if (file.size > CAPE_MAX_BYTES) next.cape = CAPE_TEXTS.tooBig;
    setErrors(next);
    if (next.title) document.getElementById(`${ids}-title`)?.focus();
    else if (next.cape) fileInput.current?.focus();
    if (file && !next.title && !next.cape) upload.mutate({ file, name: title.trim() });
  }

  return (
    <form className="form" onSubmit={submit} noValidate>
      <div className={errors.title ? 'field field-invalid' : 'field'}>
        <label htmlFor={`${ids}-title`}>Название</label>
        <input
          id={`${ids}-title`}
          value={title}
          maxLength={64}
          onChange={(e) => setTitle(e.target.value)}
          aria-invalid={errors.title ? true : undefined}
          aria-describedby={errors.title ? `${ids}-title-error` : undefined}
        />
        {errors.title && (
          <span className="field-error" id={`${ids}-title-error`}>
            {errors.title}
          </span>
        )}
      </div>
      <div className={errors.cape ? 'field field-invalid' : 'field'}>
        <label htmlFor={`${ids}-file`}>Файл плаща (PNG)</label>
        <input
          ref={fileInput}
          id={`${ids}-file`}
          name="cape"
          type="file"
          accept="image/png"
          onChange={() => setErrors((e) => ({ ...e, cape: undefined }))}
          aria-invalid={errors.cape ? true : undefined}
          aria-describedby={`${errors.cape ? `${ids}-file-error ` : ''}${ids}-file-hint`}
        />
        {errors.cape && (
          <span className="field-error" id={`${ids}-file-error`}>
            {errors.cape}
          </span>
        )}
        <span className="hint" id={`${ids}-file-hint`}>
          64×32 или HD (128×64 … 512×256); 22×17 и 46×23 (и кратные) дополняются прозрачностью. Не больше 256 КБ.
        </span>
      </div>
      {errors.form && (
        <p className="notice notice-danger" role="alert">
          {errors.form}
        </p>
      )}
      <div className="form-actions">
        <button type="button" className="btn" onClick={onDone}>
          Отмена
        </button>
        <button type="submit" className="btn btn-primary" disabled={upload.isPending}>
          {upload.isPending ? 'Загружаем…' : 'Загрузить'}
        </button>
      </div>
    </form>
  );
}

/** Rename, and who may wear it: players by name, or the holders of a donate tier. */
function CapeEditor({ crud, capeId }: { crud: Crud<AdminCape, CapeUpdateBody>; capeId: number }) {
  const cape = crud.list.data?.find((c) => c.id === capeId) ?? crud.editing!;
  const form = useSchemaForm(CapeUpdateBody, { defaultValues: { title: cape.title } });
  return (
    <div className="stack">
      <div className="cape-editor-head">
        <img className="cape-texture" src={cape.url} alt={`Текстура плаща «${cape.title}»`} width={128} height={64} />
        <p className="muted">
          {cape.width}×{cape.height}
        </p>
      </div>
      <Form form={form} onSubmit={crud.save}>
        <TextField name="title" label="Название" maxLength={64} />
        <FormErrors />
        <FormActions onCancel={crud.close} submitLabel="Сохранить название" />
      </Form>
      <Grants cape={cape} />
    </div>
  );
}

function Grants({ cape }: { cape: AdminCape }) {
  const ids = useId();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const tiers = useQuery({ queryKey: TIERS_KEY, queryFn: fetchTiers });
  const [kind, setKind] = useState<'player' | 'tier'>('player');
  const [username, setUsername] = useState('');
  const [tierId, setTierId] = useState('');
  const [error, setError] = useState<string | null>(null);
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ADMIN_CAPES_KEY });
    void queryClient.invalidateQueries({ queryKey: AUDIT_KEY });
  };
  const grant = useMutation({
    mutationFn: () => grantCape(cape.id, kind === 'player' ? { username: username.trim() } : { tier_id: Number(tierId) }),
    onSuccess: () => {
      refresh();
      notify('success', kind === 'player' ? `Плащ выдан игроку ${username.trim()}` : 'Плащ выдан донату');
      setUsername('');
      setError(null);
    },
    onError: (err) => setError(err instanceof ApiError && err.message ? err.message : 'Не удалось выдать плащ'),
  });
  const revoke = useMutation({
    mutationFn: (g: CapeGrant) => revokeCape(cape.id, g.id),
    onSuccess: () => {
      refresh();
      notify('success', 'Выдача отменена');
    },
    onError: (err) => notify('danger', err instanceof ApiError && err.message ? err.message : 'Не удалось отменить выдачу'),
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    if (kind === 'player' && !username.trim()) return setError('Введите имя игрока');
    if (kind === 'tier' && !tierId) return setError('Выберите донат');
    grant.mutate();
  }

  return (
    <section className="stack" aria-labelledby={`${ids}-h`}>
      <h3 id={`${ids}-h`}>Кому выдан</h3>
      {cape.grants.length === 0 ? (
        <p className="muted">Пока никому: выдайте плащ игроку или донату.</p>
      ) : (
        <ul className="cape-grants">
          {cape.grants.map((g) => (
            <li key={g.id}>
              <span>{holder(g)}</span>
              <button
                type="button"
                className="btn btn-small btn-danger"
                disabled={revoke.isPending}
                aria-label={`Отменить выдачу: ${holder(g)}`}
                onClick={() => revoke.mutate(g)}
              >
                Отменить
              </button>
            </li>
          ))}
        </ul>
      )}
      <form className="form" onSubmit={submit} noValidate>
        <fieldset className="field-group">
          <legend>Выдать</legend>
          <div className="row">
            <label className="checkbox">
              <input type="radio" name={`${ids}-kind`} checked={kind === 'player'} onChange={() => setKind('player')} />
              Игроку
            </label>
            <label className="checkbox">
              <input type="radio" name={`${ids}-kind`} checked={kind === 'tier'} onChange={() => setKind('tier')} />
              Донату (его обладателям)
            </label>
          </div>
          {kind === 'player' ? (
            <div className={error ? 'field field-invalid' : 'field'}>
              <label htmlFor={`${ids}-user`}>Имя игрока</label>
              <input
                id={`${ids}-user`}
                value={username}
                maxLength={16}
                onChange={(e) => setUsername(e.target.value)}
                aria-invalid={error ? true : undefined}
                aria-describedby={error ? `${ids}-error` : undefined}
              />
            </div>
          ) : (
            <div className={error ? 'field field-invalid' : 'field'}>
              <label htmlFor={`${ids}-tier`}>Донат</label>
              <select
                id={`${ids}-tier`}
                value={tierId}
                onChange={(e) => setTierId(e.target.value)}
                aria-invalid={error ? true : undefined}
                aria-describedby={error ? `${ids}-error` : undefined}
              >
                <option value="">Выберите донат</option>
                {(tiers.data ?? []).map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.title}
                  </option>
                ))}
              </select>
            </div>
          )}
          {error && (
            <span className="field-error" id={`${ids}-error`} role="alert">
              {error}
            </span>
          )}
          <div className="form-actions">
            <button type="submit" className="btn btn-primary" disabled={grant.isPending}>
              {grant.isPending ? 'Выдаём…' : 'Выдать'}
            </button>
          </div>
        </fieldset>
      </form>
    </section>
  );
}
