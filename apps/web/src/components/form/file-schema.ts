import { z } from 'zod';

// Apart from fields.tsx, so that a page whose form has no file does not load zod with the fields
// (the account forms load their schemas only when they first check a value).

/** The schema of a FileField that must be filled: null (nothing chosen) is refused with `message`. */
export function requiredFile(message: string) {
  return z
    .instanceof(File)
    .nullable()
    .transform((file, ctx) => {
      if (file) return file;
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    });
}
