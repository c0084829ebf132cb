import type { ErrorCode } from '@kubik/contract';
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../lib/errors.ts';

/** The texts an upload form answers with (each feature words them for its own file). */
export interface UploadTexts {
  notMultipart: string;
  tooBig: string;
  oneFile: string;
  unknownField: string;
  badForm: string;
  noFile: string;
}

/**
 * Reads a multipart form of one file and a few text fields (@fastify/multipart, registered by the
 * feature with its limits); any other part is refused. Multipart failures by code, and anything
 * else the parser throws (busboy's "Unexpected end of form", a missing boundary, …) is a broken form.
 */
export async function readUploadForm(
  request: FastifyRequest,
  fileField: string,
  textFields: readonly string[],
  texts: UploadTexts,
): Promise<{ file: Buffer; filename: string; fields: Partial<Record<string, string>> }> {
  if (!request.isMultipart()) throw new HttpError(415, texts.notMultipart, { code: 'not_multipart' });
  const known: Record<string, [number, string, ErrorCode]> = {
    FST_INVALID_MULTIPART_CONTENT_TYPE: [415, texts.notMultipart, 'not_multipart'],
    FST_REQ_FILE_TOO_LARGE: [413, texts.tooBig, 'file_too_large'],
    FST_FILES_LIMIT: [400, texts.oneFile, 'bad_form'],
    FST_FIELDS_LIMIT: [400, texts.unknownField, 'bad_form'],
    FST_PARTS_LIMIT: [400, texts.unknownField, 'bad_form'],
  };
  let file: Buffer | undefined;
  let filename = '';
  const fields: Partial<Record<string, string>> = {};
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== fileField) {
          part.file.resume();
          throw new HttpError(400, texts.unknownField, { code: 'bad_form' });
        }
        file = await part.toBuffer();
        filename = part.filename;
      } else {
        if (!textFields.includes(part.fieldname) || typeof part.value !== 'string')
          throw new HttpError(400, texts.unknownField, { code: 'bad_form' });
        fields[part.fieldname] = part.value;
      }
    }
  } catch (error) {
    if (error instanceof HttpError) throw error;
    const code = (error as { code?: string } | null)?.code;
    const found = code ? known[code] : undefined;
    throw found ? new HttpError(found[0], found[1], { code: found[2] }) : new HttpError(400, texts.badForm, { code: 'bad_form' });
  }
  if (!file || file.length === 0) throw new HttpError(400, texts.noFile, { code: 'no_file', field: fileField });
  return { file, filename, fields };
}
