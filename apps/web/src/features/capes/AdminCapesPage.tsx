import { CAPE_MAX_BYTES, CAPE_TEXTS, CapeUpdateBody, type AdminCape, type CapeGrant, type CapeGrantBody } from '@kubik/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { z } from 'zod';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { DataTable, type Column } from '../../components/admin/DataTable.tsx';
import { RowActions } from '../../components/admin/RowMenu.tsx';
import { useCrud, type Crud } from '../../components/admin/useCrud.ts';
import { Form, FormActions, FormErrors, useSchemaForm, type ServerErrorRules } from '../../components/form/Form.tsx';
import { FieldGroup, FileField, RadioGroupField, SelectField, TextField } from '../../components/form/fields.tsx';
import { requiredFile } from '../../components/form/file-schema.ts';
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
      {crud.dialog}
      <Modal open={crud.editing != null} title={crud.editing ? `Плащ «${crud.editing.title}»` : 'Плащ'} onClose={crud.close} wide>
        {crud.editing && <CapeEditor key={crud.editing.id} crud={crud} capeId={crud.editing.id} />}
      </Modal>
    </AdminSection>
  );
}

const CapeUpload = z.object({
  title: CapeUpdateBody.shape.title,
  cape: requiredFile(CAPE_TEXTS.noFile.replace(' в поле «cape»', '')),
});

/** A file the server would refuse for its type or size, refused as it is picked. */
const refuseCape = (file: File) =>
  file.type !== 'image/png' ? CAPE_TEXTS.notPng : file.size > CAPE_MAX_BYTES ? CAPE_TEXTS.tooBig : undefined;
const UPLOAD_ERRORS: ServerErrorRules = { formText: (error) => error?.message || 'Не удалось загрузить плащ' };

/** Title and PNG file; the server checks the size on the header and answers next to the field at fault. */
function UploadForm({ onDone }: { onDone: () => void }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const form = useSchemaForm(CapeUpload, { defaultValues: { title: '', cape: null } });

  async function upload({ title, cape: file }: z.output<typeof CapeUpload>) {
    const cape = await uploadCape(file, title);
    void queryClient.invalidateQueries({ queryKey: ADMIN_CAPES_KEY });
    void queryClient.invalidateQueries({ queryKey: AUDIT_KEY });
    notify('success', `${CAPE_TEXTS.uploaded}: «${cape.title}»`);
    onDone();
  }

  return (
    <Form form={form} onSubmit={upload} serverErrors={UPLOAD_ERRORS}>
      <TextField name="title" label="Название" maxLength={64} />
      <FileField
        name="cape"
        label="Файл плаща (PNG)"
        accept="image/png"
        refuse={refuseCape}
        hint="64×32 или HD (128×64 … 512×256); 22×17 и 46×23 (и кратные) дополняются прозрачностью. Не больше 256 КБ."
      />
      <FormErrors fields={false} />
      <FormActions onCancel={onDone} submitLabel="Загрузить" pendingLabel="Загружаем…" />
    </Form>
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

/** To a player by name or to a donate tier's holders; the radio says which field is asked for. */
const GrantTarget = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('player'), username: z.string().trim().min(1, 'Введите имя игрока'), tier_id: z.string() }),
    z.object({ kind: z.literal('tier'), username: z.string(), tier_id: z.string().min(1, 'Выберите донат') }),
  ])
  .transform((v): CapeGrantBody => (v.kind === 'player' ? { username: v.username } : { tier_id: Number(v.tier_id) }));
const GRANT_ERRORS: ServerErrorRules = { formText: (error) => error?.message || 'Не удалось выдать плащ' };

function Grants({ cape }: { cape: AdminCape }) {
  const ids = useId();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const tiers = useQuery({ queryKey: TIERS_KEY, queryFn: fetchTiers });
  const form = useSchemaForm(GrantTarget, { defaultValues: { kind: 'player', username: '', tier_id: '' } });
  const kind = form.watch('kind');
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ADMIN_CAPES_KEY });
    void queryClient.invalidateQueries({ queryKey: AUDIT_KEY });
  };
  const revoke = useMutation({
    mutationFn: (g: CapeGrant) => revokeCape(cape.id, g.id),
    onSuccess: () => {
      refresh();
      notify('success', 'Выдача отменена');
    },
    onError: (err) => notify('danger', err instanceof ApiError && err.message ? err.message : 'Не удалось отменить выдачу'),
  });

  async function grant(body: CapeGrantBody) {
    await grantCape(cape.id, body);
    refresh();
    notify('success', 'username' in body ? `Плащ выдан игроку ${body.username}` : 'Плащ выдан донату');
    form.setValue('username', '');
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
      <Form form={form} onSubmit={grant} serverErrors={GRANT_ERRORS}>
        <FieldGroup legend="Выдать">
          <RadioGroupField
            name="kind"
            label="Кому"
            options={[
              { value: 'player', label: 'Игроку' },
              { value: 'tier', label: 'Донату (его обладателям)' },
            ]}
          />
          {kind === 'player' ? (
            <TextField name="username" label="Имя игрока" maxLength={16} autoComplete="off" />
          ) : (
            <SelectField
              name="tier_id"
              label="Донат"
              options={[
                { value: '', label: 'Выберите донат' },
                ...(tiers.data ?? []).map((t) => ({ value: String(t.id), label: t.title })),
              ]}
            />
          )}
          <FormErrors fields={false} />
          <FormActions submitLabel="Выдать" pendingLabel="Выдаём…" />
        </FieldGroup>
      </Form>
    </section>
  );
}
