import { BanBody } from '@kubik/contract';
import { z } from 'zod';

// The admin's ban form, apart from its component so its rules run in Node (ban-form.test.ts).

const DAY = 86_400_000;
export const TERMS = [
  { value: '1', label: '1 день' },
  { value: '3', label: '3 дня' },
  { value: '7', label: '7 дней' },
  { value: '30', label: '30 дней' },
  { value: '365', label: '1 год' },
  { value: 'forever', label: 'Навсегда' },
  { value: 'date', label: 'До даты…' },
] as const;

/** The public reason (optional) and the internal note (required) as the server checks them, and the term. */
export const BanForm = z
  .object({
    reason: BanBody.shape.reason,
    note: BanBody.shape.note,
    term: z.enum(TERMS.map((t) => t.value) as [string, ...string[]]),
    date: z.string(),
  })
  .superRefine((v, ctx) => {
    if (v.term !== 'date') return;
    const at = new Date(v.date).getTime();
    if (!v.date || Number.isNaN(at)) ctx.addIssue({ code: 'custom', path: ['date'], message: 'Выберите дату и время окончания' });
    else if (at <= Date.now()) ctx.addIssue({ code: 'custom', path: ['date'], message: 'Дата окончания должна быть в будущем' });
  });
export type BanFormValues = z.infer<typeof BanForm>;

/** What the form sends: both texts apart, and the end in epoch ms (null: forever). */
export function banBodyOf(v: BanFormValues, now = Date.now()): BanBody {
  const until = v.term === 'forever' ? null : v.term === 'date' ? new Date(v.date).getTime() : now + Number(v.term) * DAY;
  return { reason: v.reason ?? '', note: v.note, until };
}
