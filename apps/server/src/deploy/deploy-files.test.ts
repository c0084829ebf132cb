import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVE_ENV, serveArgs } from '../../../../testing/serve-args.ts';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/**
 * The production units run the site as the benches and browser tests do (testing/serve-args.ts):
 * the serve script's node flags and the same environment. A flag or a variable added in one place
 * and not the others would leave the measured figures about a site nobody runs.
 */
describe('deploy files', () => {
  const flags = serveArgs().slice(0, -1);
  it('the serve script runs the built bundle with node flags only', () => {
    expect(serveArgs().at(-1)).toBe('apps/server/dist/main.js');
    expect(flags.length).toBeGreaterThan(0);
    for (const flag of flags) expect(flag).toMatch(/^--[a-z0-9-]+(=\S+)?$/);
  });

  it('the systemd unit: the same flags and environment', () => {
    const unit = read('deploy/systemd/kubik@.service');
    expect(unit).toMatch(new RegExp(`^ExecStart=/usr/bin/node ${[...flags, 'apps/server/dist/main.js'].join(' ')}$`, 'm'));
    for (const [name, value] of Object.entries(SERVE_ENV)) expect(unit).toMatch(new RegExp(`^Environment=${name}=${value}$`, 'm'));
  });

  it('the Docker image: the same flags and environment', () => {
    const dockerfile = read('deploy/Dockerfile');
    expect(dockerfile).toContain(`CMD ${JSON.stringify(['node', ...flags, 'apps/server/dist/main.js'])}`.replaceAll('","', '", "'));
    for (const [name, value] of Object.entries(SERVE_ENV)) expect(dockerfile).toMatch(new RegExp(`^\\s+${name}=${value} \\\\$`, 'm'));
  });
});
