import {
  formatFileSize,
  LAUNCHER_PLATFORM_INFO,
  LAUNCHER_TEXTS,
  LauncherLinkBody,
  LauncherUploadQuery,
  type AdminLauncherPlatform,
} from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { Form, FormActions, FormErrors, useSchemaForm, type ServerErrorRules } from '../../components/form/Form.tsx';
import { FileField, TextField } from '../../components/form/fields.tsx';
import { requiredFile } from '../../components/form/file-schema.ts';
import { QueryState } from '../../components/QueryState.tsx';
import { useConfirm } from '../../components/useConfirm.tsx';
import { formatDateTime } from '../../lib/format.ts';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { useNotify } from '../../providers/notifications.tsx';
import { useTitle } from '../../providers/title.ts';
import { ADMIN_LAUNCHER_KEY, fetchAdminLauncher, LAUNCHER_KEY, linkLauncher, removeLauncher, uploadLauncher } from './api.ts';
import './help.css';

/**
 * Админ-панель → Лаунчер: per platform an uploaded file (kept in DATA_DIR/downloads on this
 * server; /help shows its size and SHA-256) or a link; a platform with neither is not shown.
 */
export default function AdminLauncherPage() {
  useTitle('Админ-панель: лаунчер');
  const query = useQuery({ queryKey: ADMIN_LAUNCHER_KEY, queryFn: fetchAdminLauncher });
  return (
    <AdminSection title="Лаунчер">
      <p className="muted">
        Для каждой системы загрузите файл лаунчера или дайте ссылку на него. Система без файла и ссылки на странице помощи не показывается.
      </p>
      <QueryState query={query} error="Не удалось загрузить лаунчер" isEmpty={() => false}>
        {(data) => (
          <div className="stack">
            {data.platforms.map((p) => (
              <PlatformCard key={p.platform} item={p} maxBytes={data.max_bytes} />
            ))}
          </div>
        )}
      </QueryState>
    </AdminSection>
  );
}

function describe(item: AdminLauncherPlatform): string {
  const b = item.build;
  switch (item.source) {
    case 'file':
      return `Файл ${b!.file_name} · ${formatFileSize(b!.size ?? 0)} · версия ${b!.version} · загружен ${formatDateTime(b!.uploaded_at!)}`;
    case 'link':
      return `Ссылка ${b!.url} · версия ${b!.version}`;
    case 'settings':
      return `Ссылка из настроек: ${b!.url} · версия ${b!.version}`;
    case 'hidden':
      return 'Скрыт: на странице помощи не показывается';
    default:
      return 'Не задан: на странице помощи не показывается';
  }
}

function PlatformCard({ item, maxBytes }: { item: AdminLauncherPlatform; maxBytes: number }) {
  const info = LAUNCHER_PLATFORM_INFO[item.platform];
  const notify = useNotify();
  const queryClient = useQueryClient();
  const { confirm, dialog } = useConfirm();
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ADMIN_LAUNCHER_KEY });
    void queryClient.invalidateQueries({ queryKey: LAUNCHER_KEY });
    void queryClient.invalidateQueries({ queryKey: AUDIT_KEY });
  };
  async function remove(reset: boolean) {
    const ok = await confirm(
      reset ? `Вернуть для ${info.label} ссылку из настроек?` : `Не показывать лаунчер для ${info.label} на странице помощи?`,
      { confirmLabel: reset ? 'Вернуть' : 'Скрыть', danger: !reset },
    );
    if (!ok) return;
    try {
      notify('success', (await removeLauncher(item.platform, reset)).message);
      refresh();
    } catch (error) {
      notify('danger', error instanceof Error ? error.message : 'Не удалось изменить лаунчер');
    }
  }
  const shown = item.build !== null;
  return (
    <section className="card stack" aria-labelledby={`launcher-${item.platform}-h`} data-testid={`launcher-${item.platform}`}>
      <h3 id={`launcher-${item.platform}-h`}>
        {info.label} <span className="muted">({info.ext})</span>
      </h3>
      <p data-testid="launcher-state">{describe(item)}</p>
      {item.missing && (
        <p className="field-error" role="status">
          Файла нет на диске этого сервера — на странице помощи не показывается.
        </p>
      )}
      {item.build?.sha256 && (
        <p className="muted launcher-sha">
          SHA-256: <code>{item.build.sha256}</code>
        </p>
      )}
      <UploadForm item={item} maxBytes={maxBytes} onDone={refresh} />
      <LinkForm item={item} onDone={refresh} />
      <div className="row">
        {shown && (
          <button type="button" className="btn btn-small btn-danger" onClick={() => void remove(false)}>
            Скрыть
          </button>
        )}
        {item.source !== 'settings' && item.source !== 'none' && (
          <button type="button" className="btn btn-small" onClick={() => void remove(true)}>
            Вернуть ссылку из настроек
          </button>
        )}
      </div>
      {dialog}
    </section>
  );
}

const UPLOAD_ERRORS: ServerErrorRules = { formText: (error) => error?.message || 'Не удалось загрузить файл' };

function UploadForm({ item, maxBytes, onDone }: { item: AdminLauncherPlatform; maxBytes: number; onDone: () => void }) {
  const info = LAUNCHER_PLATFORM_INFO[item.platform];
  const notify = useNotify();
  const schema = z.object({ version: LauncherUploadQuery.shape.version, file: requiredFile(LAUNCHER_TEXTS.noFile) });
  const form = useSchemaForm(schema, { defaultValues: { version: item.build?.version ?? '', file: null } });
  const refuse = (file: File) =>
    !file.name.toLowerCase().endsWith(info.ext.toLowerCase())
      ? LAUNCHER_TEXTS.wrongType(item.platform)
      : file.size > maxBytes
        ? LAUNCHER_TEXTS.tooBig(maxBytes)
        : undefined;
  return (
    <details>
      <summary>Загрузить файл</summary>
      <Form
        form={form}
        serverErrors={UPLOAD_ERRORS}
        onSubmit={async ({ version, file }) => {
          await uploadLauncher(item.platform, version, file);
          notify('success', `${LAUNCHER_TEXTS.uploaded}: ${info.label}`);
          form.reset({ version, file: null });
          onDone();
        }}
      >
        <TextField name="version" label="Версия" maxLength={32} placeholder="1.2.0" />
        <FileField
          name="file"
          label={`Файл лаунчера (${info.ext})`}
          accept={info.ext}
          refuse={refuse}
          hint={`Не больше ${formatFileSize(maxBytes)}. Прежний файл этой системы будет удалён.`}
        />
        <FormErrors fields={false} />
        <FormActions submitLabel="Загрузить" pendingLabel="Загружаем…" />
      </Form>
    </details>
  );
}

function LinkForm({ item, onDone }: { item: AdminLauncherPlatform; onDone: () => void }) {
  const notify = useNotify();
  const form = useSchemaForm(LauncherLinkBody, {
    defaultValues: { version: item.build?.version ?? '', url: item.source === 'link' ? item.build!.url : '' },
  });
  return (
    <details>
      <summary>Дать ссылку вместо файла</summary>
      <Form
        form={form}
        onSubmit={async (body) => {
          notify('success', (await linkLauncher(item.platform, body)).message);
          onDone();
        }}
      >
        <TextField name="version" label="Версия" maxLength={32} placeholder="1.2.0" />
        <TextField name="url" label="Ссылка" maxLength={2048} placeholder="https://… или /downloads/…" />
        <FormErrors />
        <FormActions submitLabel="Сохранить ссылку" />
      </Form>
    </details>
  );
}
