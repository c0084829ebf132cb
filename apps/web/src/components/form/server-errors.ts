import { ApiError } from '../../lib/api.ts';

/*
 * Where a refused submit's error is shown: on the field it is about, or above the form's
 * buttons. Kept apart from the React parts so it can be tested on its own.
 */

/** The server names the field in its text too («… (поле «Порт»)»): next to the field itself that is noise. */
export const FIELD_SUFFIX = /\s*\((?:поле|параметр) «[^»]*»\)\s*$/;
export const FALLBACK_ERROR = 'Не удалось сохранить. Попробуйте ещё раз.';

/** What a form does with one error code of the server (`code` of the answer, see lib/errors.ts on the server). */
export interface CodeRule {
  /** The form's field the error is about, when the server names none or names another. */
  field?: string;
  /** The text to show instead of the server's. */
  text?: string;
}

export interface ServerErrorRules {
  /** By the server's error code. A code listed without a text shows the server's own text. */
  codes?: Readonly<Record<string, CodeRule>>;
  /**
   * The text of an error that lands on no field and has no rule: given the ApiError (null for
   * anything else thrown). Without it, the server's text or a general «could not save».
   */
  formText?: (error: ApiError | null) => string;
}

export interface PlacedError {
  /** The form field to show it beside; absent: above the buttons. */
  field?: string;
  message: string;
}

/**
 * Where `err` goes: the field named by its code's rule or by the server (`field`), when the form
 * has that field; otherwise the form as a whole.
 */
export function placeServerError(err: unknown, hasField: (name: string) => boolean, rules: ServerErrorRules = {}): PlacedError {
  const known = err instanceof ApiError ? err : null;
  const rule = known?.code !== undefined && rules.codes ? rules.codes[known.code] : undefined;
  const text = known?.message ?? '';
  const field = rule?.field ?? known?.field;
  if (field && hasField(field)) {
    const message = rule?.text ?? text.replace(FIELD_SUFFIX, '');
    return { field, message: message || formText(known, rules) };
  }
  if (rule) return { message: rule.text ?? (text || formText(known, rules)) };
  return { message: formText(known, rules) };
}

function formText(error: ApiError | null, rules: ServerErrorRules): string {
  if (rules.formText) return rules.formText(error);
  return error?.message || FALLBACK_ERROR;
}
