import { createContext, useContext, useEffect, useMemo, useRef, useSyncExternalStore, type ReactNode } from 'react';
import { flushSync } from 'react-dom';
import {
  FormProvider,
  useForm,
  useFormContext,
  type FieldErrors,
  type FieldValues,
  type Path,
  type Resolver,
  type UseFormProps,
  type UseFormReturn,
} from 'react-hook-form';
import type { z } from 'zod';
import { confirmDiscard, useUnsavedChanges } from '../unsaved.ts';
import { FIELD_SUFFIX, placeServerError, type ServerErrorRules } from './server-errors.ts';
import './form.css';

export type { CodeRule, ServerErrorRules } from './server-errors.ts';

/**
 * The form kit: a react-hook-form form validated by a zod schema, usually the contract's body
 * schema, so the browser checks with the server's own rules and words.
 *
 *   const form = useSchemaForm(NewsBody, { defaultValues: { title: '', image_url: '', content: '' } });
 *   <Form form={form} onSubmit={(body) => crud.save(body)}>
 *     <TextField name="title" label="Заголовок" />
 *     <FormErrors />
 *     <FormActions onCancel={crud.close} />
 *   </Form>
 *
 * A failed submit shows every error at once next to its field and focuses the first invalid
 * field; an ApiError thrown by onSubmit lands on the field its `field` (or its code's rule in
 * `serverErrors`) names, else above the actions (<FormErrors />).
 */
export function useSchemaForm<I extends FieldValues, O extends FieldValues>(
  schema: SchemaSource<O, I>,
  options: Omit<UseFormProps<I, unknown, O>, 'resolver'> = {},
): UseFormReturn<I, unknown, O> {
  useEffect(() => {
    const warm = () => void zodResolverFor(schema).catch(() => {});
    // A schema in the page: zod is here, only the resolver's small chunk is fetched, at once.
    if (typeof schema !== 'function') return warm();
    // A loaded schema is ready by the time the player has typed and sends.
    const events = ['focusin', 'pointerdown', 'keydown'] as const;
    for (const e of events) document.addEventListener(e, warm, { once: true, capture: true });
    return () => {
      for (const e of events) document.removeEventListener(e, warm, { capture: true });
    };
  }, [schema]);
  return useForm<I, unknown, O>({
    mode: 'onSubmit',
    reValidateMode: 'onChange',
    ...options,
    shouldFocusError: false,
    resolver: schemaResolver(schema),
  });
}

/**
 * A form's schema, or a function that imports it. The account forms, often a guest's first page,
 * pass a function: zod and the contract's schemas (about 25 KB compressed) then load when the
 * player first touches the page, not with the page (/login's Lighthouse score).
 */
export type SchemaSource<O, I> = z.ZodType<O, I> | (() => Promise<z.ZodType<O, I>>);

// The resolver's module comes with zod; a form whose schema is in the page has both loaded already.
// Once made, the resolver replaces its promise, to be called at once: a check that waits even a
// moment lets the form re-render mid-submit (a choice that sends itself disables its radios, which
// empties their value).
type AnyResolver = Resolver<FieldValues, unknown, FieldValues>;
const resolvers = new WeakMap<object, Promise<AnyResolver> | AnyResolver>();
function zodResolverFor<I extends FieldValues, O extends FieldValues>(source: SchemaSource<O, I>): Promise<Resolver<I, unknown, O>> {
  const known = resolvers.get(source);
  if (known) return Promise.resolve(known) as unknown as Promise<Resolver<I, unknown, O>>;
  const loading = Promise.all([typeof source === 'function' ? source() : source, import('@hookform/resolvers/zod')]).then(
    ([schema, { zodResolver }]) => {
      const made = zodResolver(schema) as AnyResolver;
      resolvers.set(source, made);
      return made;
    },
  );
  // A failed load (the network) is tried again at the next check.
  loading.catch(() => resolvers.delete(source));
  resolvers.set(source, loading);
  return loading as unknown as Promise<Resolver<I, unknown, O>>;
}

/** Where an error about the whole form (no one field) is kept: not `root`, which react-hook-form clears before it decides the form is valid. */
export const FORM_ERROR = '_form';
const CHECKS_NOT_LOADED = 'Не удалось загрузить форму: нет связи с сервером. Проверьте подключение к интернету и попробуйте ещё раз.';
const STRAY_FIELDS =
  'Форму нельзя отправить: в ней есть данные, которых сервер не принимает. Обновите страницу и попробуйте ещё раз; если не поможет — сообщите администрации сайта.';

/**
 * The zod resolver, with the schema's refusals of the whole object moved where the error list shows
 * them. A strict schema refuses keys it does not know (initial values carrying an id, say) with an
 * issue at the empty path; left there, nothing named it and the form just did not send.
 */
function schemaResolver<I extends FieldValues, O extends FieldValues>(schema: SchemaSource<O, I>): Resolver<I, unknown, O> {
  return async (values, context, options) => {
    const known = resolvers.get(schema);
    const resolver = typeof known === 'function' ? (known as unknown as Resolver<I, unknown, O>) : await zodResolverFor(schema);
    const result = await resolver(values, context, options);
    const whole = (result.errors as Record<string, { type?: unknown; message?: unknown } | undefined>)[''];
    if (!whole) return result;
    const { '': _whole, ...fields } = result.errors as Record<string, unknown>;
    const stray = whole.type === 'unrecognized_keys';
    // For whoever maintains the form: which keys the schema refused.
    if (stray) console.error('form values carry keys the schema refuses:', whole.message);
    const message = stray || typeof whole.message !== 'string' || !/[а-яё]/i.test(whole.message) ? STRAY_FIELDS : whole.message;
    return {
      values: {},
      errors: { ...fields, [FORM_ERROR]: { type: String(whole.type ?? 'form'), message } } as unknown as FieldErrors<I>,
    };
  };
}

/** What the kit's fields and error list need from their form. */
interface FormMeta {
  /** Remembers a field's Russian name, for the error list. */
  setLabel(name: string, label: string): void;
  label(name: string): string | undefined;
  /** Shows (see `reveal`) and focuses the field. */
  focus(name: string): void;
  /** The names in the order their fields stand in the form. */
  inOrder(names: string[]): string[];
}

const MetaContext = createContext<FormMeta | null>(null);

export function useFormMeta(): FormMeta {
  const meta = useContext(MetaContext);
  if (!meta) throw new Error('a form kit field outside <Form>');
  return meta;
}

const fieldElement = (form: HTMLFormElement | null, name: string) =>
  form?.querySelector<HTMLElement>(`[name="${CSS.escape(name)}"]`) ?? null;

/** Dot paths of every field error (`kits.0.name`), the form-level `root` left out. */
export function errorPaths(errors: FieldErrors, prefix = ''): string[] {
  const paths: string[] = [];
  for (const [key, value] of Object.entries(errors)) {
    if (!value || typeof value !== 'object' || (!prefix && key === 'root')) continue;
    const path = prefix ? `${prefix}.${key}` : key;
    const leaf = value as { message?: unknown; type?: unknown };
    if (typeof leaf.message === 'string' && typeof leaf.type === 'string') paths.push(path);
    else paths.push(...errorPaths(value as FieldErrors, path));
  }
  return paths;
}

interface FormProps<I extends FieldValues, O> {
  form: UseFormReturn<I, unknown, O>;
  /** Sends the valid values; a rejected ApiError is shown on its field or above the actions. */
  onSubmit: (values: O) => unknown;
  /** After a submit the schema refused (errors are shown already); e.g. the spec's toast. */
  onInvalid?: (errors: FieldErrors<I>) => void;
  /** Makes a field visible before it is focused, e.g. switches to the tab it is on. */
  reveal?: (name: string) => void;
  /** Where the server's refusals go and what they say, by error code (see server-errors.ts). */
  serverErrors?: ServerErrorRules;
  /**
   * Ask before its unsaved text is left behind (components/unsaved.ts); false for forms whose
   * values are not worth asking about (a login, a quantity to buy).
   */
  guard?: boolean;
  className?: string;
  children: ReactNode;
}

export function Form<I extends FieldValues, O>({
  form,
  onSubmit,
  onInvalid,
  reveal,
  serverErrors,
  guard = true,
  className = 'form',
  children,
}: FormProps<I, O>) {
  const element = useRef<HTMLFormElement>(null);
  // Reading isDirty subscribes the form to it: it re-renders when it flips, not at every key.
  const isDirty = form.formState.isDirty;
  useUnsavedChanges(guard && isDirty);
  const labels = useRef(new Map<string, string>());
  const revealRef = useRef(reveal);
  revealRef.current = reveal;

  const meta = useMemo<FormMeta>(() => {
    const position = (name: string) => fieldElement(element.current, name);
    return {
      setLabel: (name, label) => void labels.current.set(name, label),
      label: (name) => labels.current.get(name),
      focus(name) {
        const show = revealRef.current;
        if (show) flushSync(() => show(name));
        position(name)?.focus();
      },
      inOrder: (names) =>
        [...names].sort((a, b) => {
          const x = position(a);
          const y = position(b);
          if (!x || !y) return x ? -1 : y ? 1 : 0;
          return x.compareDocumentPosition(y) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1;
        }),
    };
  }, []);

  const submit = form.handleSubmit(
    async (values) => {
      try {
        await onSubmit(values);
        // Sent: what the form holds now is saved, nothing to ask about when leaving.
        form.reset(form.getValues(), {
          keepValues: true,
          keepErrors: true,
          keepIsSubmitted: true,
          keepSubmitCount: true,
          keepIsSubmitSuccessful: true,
          keepTouched: true,
        });
      } catch (err) {
        const placed = placeServerError(err, (name) => fieldElement(element.current, name) !== null, serverErrors);
        if (placed.field) {
          form.setError(placed.field as Path<I>, { type: 'server', message: placed.message });
          meta.focus(placed.field);
        } else {
          form.setError('root.server', { type: 'server', message: placed.message });
        }
      }
    },
    (errors) => {
      onInvalid?.(errors);
      const first = meta.inOrder(errorPaths(errors))[0];
      if (first) meta.focus(first);
    },
  );

  const live = useSyncExternalStore(noSubscription, isLive, isNotLiveYet);

  return (
    <FormProvider {...form}>
      <MetaContext.Provider value={meta}>
        {/* A form the server drew is inert until the app has taken the page over: before that a
            submit would go out as a plain GET with the password in the address, and what was
            typed would be reset by the form's defaults. */}
        <form
          ref={element}
          className={className}
          noValidate
          inert={!live}
          onSubmit={(e) => {
            form.clearErrors('root');
            // Only the check's own code can fail here: a schema that did not load (SchemaSource).
            submit(e).catch(() => form.setError('root.server', { type: 'server', message: CHECKS_NOT_LOADED }));
          }}
        >
          {children}
        </form>
      </MetaContext.Provider>
    </FormProvider>
  );
}

const noSubscription = () => () => {};
// On the server and while hydrating React asks the third; in the browser, the second.
const isLive = () => true;
const isNotLiveYet = () => false;

/**
 * The error list: the form-level error (a server answer about no one field) and, after a failed
 * submit, the names of the fields to fix, each a button to its field. The messages themselves
 * stand next to their fields. A form of one or two fields, whose errors are in sight anyway,
 * leaves the names out (`fields={false}`).
 */
export function FormErrors({ fields = true }: { fields?: boolean }) {
  const { formState } = useFormContext();
  const meta = useFormMeta();
  const root = formState.errors.root?.server?.message;
  const whole = formState.errors[FORM_ERROR]?.message;
  const paths = fields ? meta.inOrder(errorPaths(formState.errors).filter((p) => p !== FORM_ERROR)) : [];
  if (!root && !whole && paths.length === 0) return null;
  return (
    <div className="notice notice-danger form-errors" role="alert">
      {root && <p>{root}</p>}
      {typeof whole === 'string' && <p>{whole}</p>}
      {paths.length > 0 && (
        <>
          <p>{paths.length === 1 ? 'Проверьте поле:' : 'Проверьте поля:'}</p>
          <ul>
            {paths.map((path) => {
              const label = meta.label(path);
              return (
                <li key={path}>
                  {label ? (
                    <button type="button" className="link-button" onClick={() => meta.focus(path)}>
                      {label}
                    </button>
                  ) : (
                    errorMessage(formState.errors, path)
                  )}
                </li>
              );
            })}
          </ul>
        </>
      )}
    </div>
  );
}

function errorMessage(errors: FieldErrors, path: string): string {
  let at: unknown = errors;
  for (const key of path.split('.')) at = (at as Record<string, unknown> | undefined)?.[key];
  return ((at as { message?: string } | undefined)?.message ?? '').replace(FIELD_SUFFIX, '');
}

interface FormActionsProps {
  onCancel?: () => void;
  submitLabel?: string;
  pendingLabel?: string;
  /** Further buttons, before Отмена. */
  children?: ReactNode;
}

/** Отмена and the submit button, which says «Сохраняем…» and is disabled while the form is sent. */
export function FormActions({ onCancel, submitLabel = 'Сохранить', pendingLabel = 'Сохраняем…', children }: FormActionsProps) {
  const { formState } = useFormContext();
  // «Отмена» with typed text asks first, as Escape does.
  const cancel = () => {
    if (!onCancel) return;
    if (!formState.isDirty) return onCancel();
    void confirmDiscard().then((ok) => {
      if (ok) onCancel();
    });
  };
  return (
    <div className="form-actions">
      {children}
      {onCancel && (
        <button type="button" className="btn" onClick={cancel}>
          Отмена
        </button>
      )}
      <SubmitButton label={submitLabel} pendingLabel={pendingLabel} />
    </div>
  );
}

interface SubmitButtonProps {
  label: string;
  pendingLabel: string;
  className?: string;
  /** Further reasons to wait, e.g. no file chosen yet. */
  disabled?: boolean;
}

/** The submit button alone (a page's one wide button): its pending text and disabled while the form is sent. */
export function SubmitButton({ label, pendingLabel, className = 'btn btn-primary', disabled = false }: SubmitButtonProps) {
  const { formState } = useFormContext();
  return (
    <button type="submit" className={className} disabled={disabled || formState.isSubmitting}>
      {formState.isSubmitting ? pendingLabel : label}
    </button>
  );
}
