import type { MediaUploadResponse } from '@kubik/contract';
import { MEDIA_ACCEPT, MEDIA_MAX_BYTES, MEDIA_TEXTS } from '@kubik/contract/media-limits';
import {
  createContext,
  useContext,
  useEffect,
  useId,
  useRef,
  useState,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from 'react';
import { useController, useFormContext, useWatch } from 'react-hook-form';
import { api, ApiError } from '../../lib/api.ts';
import { fieldDescribedBy, FieldNotes, FieldShell } from './FieldShell.tsx';
import { useFormMeta } from './Form.tsx';

/*
 * The kit's fields. Each takes the value's dot path as `name` and a Russian `label`; it shows
 * its error next to itself and marks the control (aria-invalid, aria-describedby → its hint
 * and error). Numbers and money are typed as text and reach the schema as numbers.
 */

interface BaseProps {
  name: string;
  label: string;
  hint?: ReactNode;
}

/** Fields inside a group are named «<legend> — <label>» in the error list (Кит 2 — Название кита). */
const GroupContext = createContext('');

export function FieldGroup({ legend, className = 'field-group', children }: { legend: string; className?: string; children: ReactNode }) {
  const outer = useContext(GroupContext);
  return (
    <fieldset className={className}>
      <legend>{legend}</legend>
      <GroupContext.Provider value={outer ? `${outer} — ${legend}` : legend}>{children}</GroupContext.Provider>
    </fieldset>
  );
}

function useField(name: string, label: string, hint: ReactNode) {
  const { getFieldState, formState } = useFormContext();
  const group = useContext(GroupContext);
  useFormMeta().setLabel(name, group ? `${group} — ${label}` : label);
  const id = useId();
  const error = getFieldState(name, formState).error?.message;
  return { id, error, control: { id, 'aria-invalid': error ? true : undefined, 'aria-describedby': fieldDescribedBy(id, error, hint) } };
}

type InputProps = BaseProps & Omit<InputHTMLAttributes<HTMLInputElement>, 'name'>;

export function TextField({ name, label, hint, type = 'text', ...input }: InputProps) {
  const { register } = useFormContext();
  const f = useField(name, label, hint);
  return (
    <FieldShell id={f.id} label={label} hint={hint} error={f.error} required={input.required}>
      <input type={type} {...input} {...register(name)} {...f.control} />
    </FieldShell>
  );
}

export function TextAreaField({ name, label, hint, ...textarea }: BaseProps & Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'name'>) {
  const { register } = useFormContext();
  const f = useField(name, label, hint);
  return (
    <FieldShell id={f.id} label={label} hint={hint} error={f.error} required={textarea.required}>
      <textarea {...textarea} {...register(name)} {...f.control} />
    </FieldShell>
  );
}

export interface Option {
  value: string;
  label: string;
}

/** A select of string values (a page maps them to numbers or null itself). */
export function SelectField({
  name,
  label,
  hint,
  options,
  ...select
}: BaseProps & { options: readonly Option[] } & Omit<SelectHTMLAttributes<HTMLSelectElement>, 'name'>) {
  const { register } = useFormContext();
  const f = useField(name, label, hint);
  return (
    <FieldShell id={f.id} label={label} hint={hint} error={f.error} required={select.required}>
      <select {...select} {...register(name)} {...f.control}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </FieldShell>
  );
}

export function CheckboxField({ name, label, hint, ...input }: InputProps) {
  const { register } = useFormContext();
  const f = useField(name, label, hint);
  return (
    <div className={f.error ? 'field field-check field-invalid' : 'field field-check'}>
      <label className="checkbox">
        <input type="checkbox" {...input} {...register(name)} {...f.control} />
        {label}
      </label>
      <FieldNotes id={f.id} error={f.error} hint={hint} />
    </div>
  );
}

export interface RadioOption {
  value: string;
  label: ReactNode;
  className?: string;
}

/**
 * One choice of several, as radio buttons in a fieldset whose legend is the label. With
 * `submitOnChange` a choice is sent at once (a setting that saves itself); a refusal shows under
 * the group like any field's error.
 */
export function RadioGroupField({
  name,
  label,
  hint,
  options,
  disabled,
  submitOnChange,
  className = 'radio-row',
}: BaseProps & { options: readonly RadioOption[]; disabled?: boolean; submitOnChange?: boolean; className?: string }) {
  const { register, formState } = useFormContext();
  const f = useField(name, label, hint);
  const field = register(name);
  return (
    <fieldset className={`${className} radio-group`} aria-describedby={f.control['aria-describedby']}>
      <legend>{label}</legend>
      {options.map((o) => (
        <label key={o.value} className={o.className ? `checkbox ${o.className}` : 'checkbox'}>
          <input
            type="radio"
            value={o.value}
            {...field}
            disabled={disabled || (submitOnChange && formState.isSubmitting)}
            onChange={async (e) => {
              const form = e.currentTarget.form;
              await field.onChange(e);
              if (submitOnChange) form?.requestSubmit();
            }}
          />
          {o.label}
        </label>
      ))}
      <FieldNotes id={f.id} error={f.error} hint={hint} />
    </fieldset>
  );
}

interface FileFieldProps extends BaseProps {
  accept?: string;
  /** Checked as a file is picked: a refused file is dropped at once and this text shown beside the field. */
  refuse?: (file: File) => string | undefined;
}

/**
 * One file, kept in the form as a File (null when none is chosen); a reset empties the picker
 * too. The native picker speaks the browser's language («Choose File»), so it is hidden behind
 * a second label drawn as a button, with the chosen file's name said in Russian below it.
 */
export function FileField({ name, label, hint, accept, refuse }: FileFieldProps) {
  const { field } = useController({ name });
  const { setValue, setError, clearErrors } = useFormContext();
  const f = useField(name, label, hint);
  const input = useRef<HTMLInputElement | null>(null);
  const file = field.value instanceof File ? field.value : null;
  useEffect(() => {
    if (!file && input.current) input.current.value = '';
  }, [file]);
  return (
    <FieldShell id={f.id} label={label} hint={hint} error={f.error}>
      <input
        ref={(el) => {
          input.current = el;
          field.ref(el);
        }}
        type="file"
        name={field.name}
        accept={accept}
        className="file-input"
        onBlur={field.onBlur}
        onChange={(e) => {
          const picked = e.target.files?.[0] ?? null;
          const refused = picked ? refuse?.(picked) : undefined;
          // Not field.onChange: its re-validation would replace the refusal with the schema's «no file».
          setValue(name, refused ? null : picked, { shouldDirty: true });
          if (refused) {
            e.target.value = '';
            setError(name, { type: 'refused', message: refused });
          } else clearErrors(name);
        }}
        {...f.control}
      />
      <label htmlFor={f.id} className="btn file-pick" aria-hidden="true">
        Выбрать файл
      </label>
      <span className="file-name" aria-live="polite">
        {file ? `Выбран файл: ${file.name}` : 'Файл не выбран'}
      </span>
    </FieldShell>
  );
}

const SPACES = /[\s\u00a0\u202f₽]/g;

/** '' → `empty`; whole numbers → number; anything else → NaN, which the schema refuses with its own words. */
const parseInteger = (text: string, empty: unknown) => {
  const t = text.replace(SPACES, '');
  return t === '' ? empty : /^-?\d+$/.test(t) ? Number(t) : NaN;
};
const parseMoney = (text: string, empty: unknown) => {
  const t = text.replace(SPACES, '').replace(',', '.');
  return t === '' ? empty : /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : NaN;
};
const showInteger = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? String(v) : '');
/** 1250 → '1250', 12.5 → '12,50' */
const showMoney = (v: unknown) =>
  typeof v === 'number' && Number.isFinite(v) ? (Number.isInteger(v) ? String(v) : v.toFixed(2).replace('.', ',')) : '';

interface NumberProps extends InputProps {
  /** The value of an empty field: undefined (left out) by default, null where the API wants «none». */
  empty?: null;
}

function NumericField({
  name,
  label,
  hint,
  empty,
  parse,
  show,
  ...input
}: NumberProps & { parse: (text: string, empty: unknown) => unknown; show: (v: unknown) => string }) {
  const { field } = useController({ name });
  const { getValues } = useFormContext();
  const f = useField(name, label, hint);
  // The form's own value: field.value falls back to the default while it is undefined (a cleared
  // field), which would put the default's text back while the form holds nothing.
  const value: unknown = getValues(name);
  // The text as typed, and the value it stood for: a value set from outside (a reset) replaces the text.
  const [typed, setTyped] = useState(() => ({ text: show(value), value }));
  if (!Object.is(typed.value, value)) setTyped({ text: show(value), value });
  return (
    <FieldShell id={f.id} label={label} hint={hint} error={f.error} required={input.required}>
      <input
        type="text"
        autoComplete="off"
        {...input}
        name={field.name}
        ref={field.ref}
        value={typed.text}
        onBlur={field.onBlur}
        onChange={(e) => {
          const next = parse(e.target.value, empty);
          setTyped({ text: e.target.value, value: next });
          field.onChange(next);
        }}
        {...f.control}
      />
    </FieldShell>
  );
}

export function NumberField(props: NumberProps) {
  return <NumericField inputMode="numeric" {...props} parse={parseInteger} show={showInteger} />;
}

/** Roubles with kopecks: «1 250», «35,50» or «35.5» are all taken. */
export function MoneyField(props: NumberProps) {
  return <NumericField inputMode="decimal" {...props} parse={parseMoney} show={showMoney} />;
}

const PREVIEWABLE = /^(https?:\/\/|\/(?!\/))\S+$/i;

/** Sends a picture to the site's media store (admin only) and answers its address, /media/<hash>.<ext>. */
export async function uploadImage(file: File): Promise<string> {
  if (file.size > MEDIA_MAX_BYTES) throw new ApiError(413, MEDIA_TEXTS.tooBig, 'file_too_large', 'file');
  const form = new FormData();
  form.append('file', file, file.name);
  return (await api<MediaUploadResponse>('/api/admin/media', { method: 'POST', body: form })).url;
}

/**
 * An image: uploaded from the computer («Загрузить файл», stored by the site) or given as an
 * address (http(s)://… or a path on this site), with a small preview once it looks like one.
 * An upload's error shows beside the field like any other.
 */
export function ImageUrlField({ placeholder = 'https://… или /media/…', ...props }: InputProps) {
  const value = useWatch({ name: props.name }) as unknown;
  const { setValue, setError, clearErrors } = useFormContext();
  const [broken, setBroken] = useState('');
  const [busy, setBusy] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const src = typeof value === 'string' && PREVIEWABLE.test(value.trim()) ? value.trim() : '';

  const upload = async (file: File | undefined) => {
    if (!file) return;
    setBusy(true);
    clearErrors(props.name);
    try {
      setValue(props.name, await uploadImage(file), { shouldDirty: true, shouldValidate: true });
    } catch (err) {
      setError(
        props.name,
        { type: 'upload', message: err instanceof ApiError && err.message ? err.message : 'Не удалось загрузить картинку' },
        { shouldFocus: true },
      );
    } finally {
      setBusy(false);
      if (fileInput.current) fileInput.current.value = '';
    }
  };

  return (
    <div className="field-with-preview">
      <TextField type="text" inputMode="url" autoComplete="off" spellCheck={false} placeholder={placeholder} {...props} />
      <div className="field-image-side">
        {src && src !== broken && (
          <img className="field-preview pixelated" src={src} alt="" width={44} height={44} onError={() => setBroken(src)} />
        )}
        <input
          ref={fileInput}
          type="file"
          accept={MEDIA_ACCEPT}
          hidden
          aria-hidden="true"
          tabIndex={-1}
          onChange={(e) => void upload(e.target.files?.[0])}
        />
        <button type="button" className="btn btn-small" disabled={busy} onClick={() => fileInput.current?.click()}>
          {busy ? 'Загрузка…' : 'Загрузить файл'}
        </button>
      </div>
    </div>
  );
}
