import {
  isImageIcon,
  SUPPORT_IMAGE_ACCEPT,
  SUPPORT_IMAGE_MAX_BYTES,
  SUPPORT_LIMITS,
  SUPPORT_STATE_TEXT,
  SUPPORT_TEXTS,
  type SupportAttachment,
  type SupportState,
  type SupportTicket,
} from '@kubik/contract';
import { useId, useRef, useState } from 'react';
import { useFormContext } from 'react-hook-form';
import { Badge, type BadgeTone } from '../../components/Badge.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { uploadAttachment } from './api.ts';

const STATE_TONE: Record<SupportState, BadgeTone> = { open: 'success', waiting: 'warning', closed: 'neutral' };

export function StateBadge({ state }: { state: SupportState }) {
  return <Badge tone={STATE_TONE[state]}>{SUPPORT_STATE_TEXT[state]}</Badge>;
}

/** A category's icon: an emoji as text, an uploaded picture as a small image; nothing when none. */
export function CategoryIcon({ icon }: { icon: string | null }) {
  if (!icon) return null;
  if (isImageIcon(icon)) return <img className="support-icon" src={icon} alt="" width={24} height={24} loading="lazy" />;
  return (
    <span className="support-icon" aria-hidden="true">
      {icon}
    </span>
  );
}

/**
 * The thread: each message with its author, time and pictures. Texts are drawn as text (React
 * escapes them; line breaks kept by CSS), never as HTML or Markdown.
 */
export function Thread({ ticket }: { ticket: SupportTicket }) {
  return (
    <ol className="support-thread" aria-label="Переписка">
      {ticket.messages.map((m) => (
        <li
          key={m.id}
          className={`support-message ${m.staff ? 'from-staff' : 'from-player'}${m.internal ? ' internal' : ''}`}
          data-testid="support-message"
        >
          <div className="support-message-head">
            <strong>{m.author}</strong>
            {m.staff && !m.internal && <Badge tone="success">Поддержка</Badge>}
            {m.internal && <Badge tone="gold">Заметка для сотрудников</Badge>}
            <time className="muted" dateTime={new Date(m.created_at).toISOString()}>
              {formatDateTime(m.created_at)}
            </time>
          </div>
          <p className="support-text">{m.text}</p>
          {m.attachments.length > 0 && <Pictures items={m.attachments} />}
        </li>
      ))}
    </ol>
  );
}

function Pictures({ items }: { items: SupportAttachment[] }) {
  return (
    <ul className="support-pictures" aria-label="Картинки">
      {items.map((a) => (
        <li key={a.id}>
          <a href={a.url} target="_blank" rel="noopener" aria-label={`Открыть картинку ${a.name}`}>
            <img src={a.url} alt={a.name} width={a.width} height={a.height} loading="lazy" />
          </a>
        </li>
      ))}
    </ul>
  );
}

/** The ticket's facts beside the thread: category, answers to its fields, what it is about. */
export function TicketFacts({ ticket }: { ticket: SupportTicket }) {
  if (!ticket.category && ticket.fields.length === 0 && !ticket.link) return null;
  return (
    <dl className="support-facts">
      {ticket.category && (
        <div className="support-fact">
          <dt>Категория</dt>
          <dd>
            <CategoryIcon icon={ticket.category.icon} /> {ticket.category.name}
          </dd>
        </div>
      )}
      {ticket.fields.map((f) => (
        <div key={f.label} className="support-fact">
          <dt>{f.label}</dt>
          <dd>{f.value}</dd>
        </div>
      ))}
      {ticket.link && (
        <div className="support-fact">
          <dt>Связано с</dt>
          <dd>{ticket.link.label}</dd>
        </div>
      )}
    </dl>
  );
}

const reason = (err: unknown) => (err instanceof ApiError && err.message ? err.message : 'Не удалось загрузить картинку');

/**
 * Pictures for a message: each chosen file is sent at once (checked and re-encoded by the server),
 * shown as a chip that can be taken off, and its id goes with the message. Refusals stand beside
 * the button, as does the server's refusal of the message's pictures (`attachment_ids`). A form
 * field of the kit's form, so the form's error for `attachment_ids` lands here.
 */
export function AttachmentPicker({ value, onChange }: { value: SupportAttachment[]; onChange: (next: SupportAttachment[]) => void }) {
  const input = useRef<HTMLInputElement>(null);
  const id = useId();
  const [busy, setBusy] = useState(false);
  const [refused, setRefused] = useState<string[]>([]);
  const { formState, clearErrors } = useFormContext();
  const serverError = (formState.errors.attachment_ids as { message?: string } | undefined)?.message;
  const left = SUPPORT_LIMITS.attachmentsPerMessage - value.length;

  const pick = async (files: FileList | null) => {
    if (!files?.length) return;
    setBusy(true);
    clearErrors('attachment_ids');
    const failed: string[] = [];
    let next = value;
    for (const file of Array.from(files)) {
      if (next.length >= SUPPORT_LIMITS.attachmentsPerMessage) {
        failed.push(`«${file.name}»: не больше ${SUPPORT_LIMITS.attachmentsPerMessage} картинок в сообщении`);
        continue;
      }
      if (file.size > SUPPORT_IMAGE_MAX_BYTES) {
        failed.push(`«${file.name}»: ${SUPPORT_TEXTS.tooBig}`);
        continue;
      }
      try {
        next = [...next, await uploadAttachment(file)];
        onChange(next);
      } catch (err) {
        failed.push(`«${file.name}»: ${reason(err)}`);
      }
    }
    setRefused(failed);
    setBusy(false);
    if (input.current) input.current.value = '';
  };

  const errors = [...refused, ...(serverError ? [serverError] : [])];
  return (
    <div className={errors.length ? 'field field-invalid support-picker' : 'field support-picker'}>
      <input
        ref={input}
        id={id}
        type="file"
        accept={SUPPORT_IMAGE_ACCEPT}
        multiple
        hidden
        tabIndex={-1}
        onChange={(e) => void pick(e.target.files)}
      />
      <button
        type="button"
        name="attachment_ids"
        className="btn btn-small"
        disabled={busy || left <= 0}
        aria-describedby={errors.length ? `${id}-error` : `${id}-hint`}
        onClick={() => input.current?.click()}
      >
        {busy ? 'Загружаем…' : 'Прикрепить картинку'}
      </button>
      <span className="hint" id={`${id}-hint`}>
        PNG, JPEG или WebP, до 5 МБ; не больше {SUPPORT_LIMITS.attachmentsPerMessage} в сообщении.
      </span>
      {value.length > 0 && (
        <ul className="support-chips" aria-label="Прикреплённые картинки">
          {value.map((a) => (
            <li key={a.id} className="support-chip">
              <img src={a.url} alt="" width={40} height={40} />
              <span className="support-chip-name">{a.name}</span>
              <button
                type="button"
                className="btn btn-small btn-ghost"
                aria-label={`Убрать картинку ${a.name}`}
                onClick={() => onChange(value.filter((x) => x.id !== a.id))}
              >
                ✕
              </button>
            </li>
          ))}
        </ul>
      )}
      {errors.length > 0 && (
        <div className="field-error" id={`${id}-error`} role="alert">
          {errors.map((e) => (
            <p key={e}>{e}</p>
          ))}
        </div>
      )}
    </div>
  );
}
