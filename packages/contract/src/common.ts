import { z } from 'zod';

/** Every error the API returns has this shape; the text is what the client shows. */
export const ErrorResponse = z.object({ error: z.string() });
export type ErrorResponse = z.infer<typeof ErrorResponse>;

export const MessageResponse = z.object({ message: z.string() });
export type MessageResponse = z.infer<typeof MessageResponse>;

export const IdParams = z.strictObject({
  id: z.coerce.number({ error: 'Некорректный идентификатор' }).int('Некорректный идентификатор').positive('Некорректный идентификатор').max(2_147_483_647, 'Некорректный идентификатор'),
});

/** Roubles on the wire; the server keeps kopecks. */
export const Roubles = z.number({ error: 'Сумма должна быть числом' }).finite('Сумма должна быть числом').min(0, 'Сумма не может быть отрицательной').max(100_000_000, 'Слишком большая сумма');
