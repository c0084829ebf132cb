import { z } from 'zod';

// In the browser zod compiles no parsers with new Function: its probe for eval alone is a CSP
// violation (script-src 'self'), which Lighthouse reports as an issue on every page.
// The server keeps the faster compiled parsers.
if (typeof (globalThis as { document?: unknown }).document !== 'undefined') z.config({ jitless: true });

/**
 * Russian names of an object's fields, kept with the schema: the server names a refused field by
 * them («… (поле «Адрес»)») and forms may show them. A field may instead carry `.meta({ label })`.
 */
export function withLabels<T extends z.ZodObject>(schema: T, labels: { [K in keyof T['shape']]?: string }): T {
  return schema.meta({ labels }) as T;
}

export const MessageResponse = z.object({ message: z.string() });
export type MessageResponse = z.infer<typeof MessageResponse>;

export const IdParams = withLabels(
  z.strictObject({
    id: z.coerce
      .number({ error: 'Некорректный идентификатор' })
      .int('Некорректный идентификатор')
      .positive('Некорректный идентификатор')
      .max(2_147_483_647, 'Некорректный идентификатор'),
  }),
  { id: 'Идентификатор' },
);

/** A money amount the server would store as zero kopecks although it is not zero (1e-9 ₽, 0.004 ₽). */
export const roundsToZeroKopecks = (roubles: number) => roubles !== 0 && Math.round(roubles * 100) === 0;
export const ZERO_KOPECKS_TEXT = 'Сумма меньше копейки: укажите не меньше 0,01 ₽';

/** Roubles on the wire; the server keeps kopecks. */
export const Roubles = z
  .number({ error: 'Сумма должна быть числом' })
  .finite('Сумма должна быть числом')
  .min(0, 'Сумма не может быть отрицательной')
  .max(100_000_000, 'Слишком большая сумма')
  .refine((v) => !roundsToZeroKopecks(v), ZERO_KOPECKS_TEXT);
