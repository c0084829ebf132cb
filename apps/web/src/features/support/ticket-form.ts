import {
  fieldAnswerProblems,
  SUPPORT_LINK_KINDS,
  SupportTicketBody,
  type SupportCategory,
  type SupportField,
  type SupportLinkRef,
} from '@kubik/contract';
import { z } from 'zod';

// The new-ticket form's values and what the API takes from them; apart from the page, to be tested on their own.

export type Answers = Record<string, string | boolean>;
export interface NewTicketValues {
  category_id: string;
  subject: string;
  message: string;
  link: string;
  fields: Answers;
}

/** A field's answer as the API takes it: a number typed as text becomes a number, an empty one is left out. */
export function answerOf(field: SupportField, value: string | boolean | undefined): string | number | boolean | undefined {
  if (field.type === 'checkbox') return value === true;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  if (field.type === 'number') {
    const n = Number(value.trim().replace(/\s/g, '').replace(',', '.'));
    return Number.isFinite(n) ? n : value;
  }
  return value.trim();
}

export function answersFor(category: SupportCategory | undefined, raw: Answers | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const f of category?.fields ?? []) {
    const v = answerOf(f, raw?.[f.key]);
    if (v !== undefined) out[f.key] = v;
  }
  return out;
}

/** The form's own check: the contract's rules for the texts, and the chosen category's for its fields. */
export function newTicketSchema(categories: SupportCategory[]) {
  return z
    .object({
      category_id: z.string().min(1, 'Выберите категорию'),
      subject: SupportTicketBody.shape.subject,
      message: SupportTicketBody.shape.message,
      link: z.string(),
      fields: z.record(z.string(), z.union([z.string(), z.boolean()])).default({}),
    })
    .superRefine((v, ctx) => {
      const category = categories.find((c) => String(c.id) === v.category_id);
      if (!category) return;
      for (const p of fieldAnswerProblems(category.fields, answersFor(category, v.fields)))
        ctx.addIssue({ code: 'custom', path: ['fields', p.key], message: p.message });
    });
}

/** The link select's value («order:12», «payment:<uuid>», '' for none) as the API takes it. */
export function linkRef(value: string): SupportLinkRef | null {
  const at = value.indexOf(':');
  const kind = value.slice(0, at);
  if (at < 1 || !(SUPPORT_LINK_KINDS as readonly string[]).includes(kind)) return null;
  return { kind: kind as SupportLinkRef['kind'], id: value.slice(at + 1) };
}
