import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '../../dist/cli.js');

// No Docker engine here: the image's config step is a script, run as the Dockerfile runs it.
it("the container's default config is the shipped one with its rules beside it, and checks clean", async () => {
  expect(readFileSync('Dockerfile', 'utf8')).toContain('RUN sh scripts/container-config.sh /out/etc/avawatch\n');
  expect(readFileSync('.dockerignore', 'utf8')).toContain('!scripts/container-config.sh\n');
  const out = mkdtempSync(join(tmpdir(), 'avawatch-image-'));
  try {
    await run('sh', ['scripts/container-config.sh', out]);
    const config = readFileSync(join(out, 'avawatch.yaml'), 'utf8');
    expect(config).toContain('  path: /var/lib/avawatch/avawatch.db    # on the volume\n');
    expect(config).toContain('  - rules/validators.yaml\n');
    const check = await run(process.execPath, [CLI, 'check', '-c', join(out, 'avawatch.yaml')], { env: { PATH: process.env['PATH'] ?? '' } });
    // No inventory yet: the profile's rules wait for one (mounted validators, or avawatch init).
    expect(check.stdout).toContain('rule files: 10, rules: 1\n');
    expect(check.stderr).toContain('26 rule(s) with \\"validators: all\\" watch nothing');
    expect(check.stdout).toMatch(/examples not loaded: \d+ /);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
