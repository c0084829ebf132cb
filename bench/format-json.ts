import { writeFileSync } from 'node:fs';
import { format, resolveConfig } from 'prettier';

/** Writes a results file as the repository's formatter would, so `npm run lint` passes with it committed. */
export async function writeJson(file: string, value: unknown): Promise<void> {
  const options = await resolveConfig(file);
  writeFileSync(file, await format(JSON.stringify(value), { ...options, filepath: file }));
}
