import { MEDIA_ACCEPT, type MediaItem } from '@kubik/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { DataTable, type Column } from '../../components/admin/DataTable.tsx';
import { uploadImage } from '../../components/form/fields.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { useNotify } from '../../providers/notifications.tsx';
import { useTitle } from '../../providers/title.ts';
import { deleteMedia, fetchMedia, MEDIA_KEY } from './api.ts';
import './media.css';

const size = (bytes: number) =>
  bytes >= 1024 * 1024
    ? `${formatNumber(Math.round((bytes / 1024 / 1024) * 10) / 10)} МБ`
    : `${formatNumber(Math.max(1, Math.round(bytes / 1024)))} КБ`;
const reason = (err: unknown, fallback: string) => (err instanceof ApiError && err.message ? err.message : fallback);

/** Uploaded pictures: upload, copy an address, see where each is used, delete the unused. */
export default function AdminMediaPage() {
  useTitle('Админ-панель: картинки');
  const notify = useNotify();
  const client = useQueryClient();
  const list = useQuery({ queryKey: MEDIA_KEY, queryFn: fetchMedia });
  const fileInput = useRef<HTMLInputElement>(null);
  const [uploading, setUploading] = useState(false);
  // Files the server refused, each with why: beside the upload button, all at once, until the next upload.
  const [refused, setRefused] = useState<string[]>([]);
  const refresh = () => Promise.all([client.invalidateQueries({ queryKey: MEDIA_KEY }), client.invalidateQueries({ queryKey: AUDIT_KEY })]);

  const upload = async (files: FileList | null) => {
    if (!files?.length) return;
    setUploading(true);
    setRefused([]);
    try {
      const failed: string[] = [];
      for (const file of Array.from(files)) {
        try {
          await uploadImage(file);
          notify('success', `Картинка «${file.name}» загружена`);
        } catch (err) {
          failed.push(`«${file.name}»: ${reason(err, 'не удалось загрузить')}`);
        }
      }
      setRefused(failed);
      await refresh();
    } finally {
      setUploading(false);
      if (fileInput.current) fileInput.current.value = '';
    }
  };

  const remove = useMutation({
    mutationFn: (item: MediaItem) => deleteMedia(item.hash),
    onSuccess: async () => {
      notify('success', 'Картинка удалена');
      await refresh();
    },
    onError: (err) => notify('danger', reason(err, 'Не удалось удалить картинку')),
  });

  const copy = async (item: MediaItem) => {
    const address = new URL(item.url, window.location.origin).toString();
    try {
      await navigator.clipboard.writeText(address);
      notify('success', 'Адрес скопирован');
    } catch {
      window.prompt('Адрес картинки', address);
    }
  };

  const columns: Column<MediaItem>[] = [
    {
      header: 'Картинка',
      kind: 'media',
      cell: (m) => <img className="media-thumb" src={m.url} alt="" width={64} height={64} loading="lazy" />,
    },
    { header: 'Файл', kind: 'main', cell: (m) => <span className="media-name">{m.name}</span> },
    { header: 'Размер', cell: (m) => `${m.width}×${m.height}, ${size(m.size)}` },
    { header: 'Загружена', cell: (m) => formatDateTime(m.created_at) },
    {
      header: 'Где используется',
      cell: (m) =>
        m.used_in.length === 0 ? <span className="muted">нигде</span> : m.used_in.map((u) => `${u.section}: «${u.title}»`).join('; '),
    },
    {
      header: 'Действия',
      kind: 'actions',
      cell: (m) => (
        <div className="row media-actions">
          <button type="button" className="btn btn-small" onClick={() => void copy(m)} aria-label={`Скопировать адрес картинки ${m.name}`}>
            Адрес
          </button>
          <button
            type="button"
            className="btn btn-small btn-danger"
            disabled={m.used_in.length > 0 || remove.isPending}
            title={m.used_in.length > 0 ? 'Картинка используется — сначала уберите её оттуда' : undefined}
            aria-label={`Удалить картинку ${m.name}`}
            onClick={() => {
              if (window.confirm(`Удалить картинку «${m.name}»?`)) remove.mutate(m);
            }}
          >
            Удалить
          </button>
        </div>
      ),
    },
  ];

  return (
    <AdminSection
      title="Картинки"
      actions={
        <>
          <input
            ref={fileInput}
            type="file"
            accept={MEDIA_ACCEPT}
            multiple
            hidden
            aria-hidden="true"
            tabIndex={-1}
            onChange={(e) => void upload(e.target.files)}
          />
          <button type="button" className="btn btn-primary" disabled={uploading} onClick={() => fileInput.current?.click()}>
            {uploading ? 'Загрузка…' : 'Загрузить картинки'}
          </button>
        </>
      }
    >
      <p className="muted">
        PNG, JPEG, WebP или GIF, до 8 МБ и 4096×4096 точек. Файлы сохраняются без метаданных (EXIF, геометок). Картинку, которая где-то
        используется, удалить нельзя.
      </p>
      {refused.length > 0 && (
        <div className="notice notice-danger" role="alert" data-testid="media-refused">
          <p>{refused.length === 1 ? 'Не загружен файл:' : 'Не загружены файлы:'}</p>
          <ul>
            {refused.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </div>
      )}
      <QueryState query={list} error="Не удалось загрузить список картинок" empty="Картинок пока нет">
        {(items) => <DataTable label="Картинки" rows={items} columns={columns} rowKey={(m) => m.hash} />}
      </QueryState>
    </AdminSection>
  );
}
