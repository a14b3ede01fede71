import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's chromium (scripts/test-deps.sh installs it); CHROMIUM overrides the path. */
function executable(): string {
  const path = process.env['CHROMIUM'] ?? '/usr/bin/chromium';
  if (spawnSync(path, ['--version']).status === 0) return path;
  throw new Error(`${path} is not there: run \`bash scripts/test-deps.sh\` (Debian package chromium), or set CHROMIUM to a Chromium binary`);
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Headless Chromium with a fresh profile in a temporary directory. The flags keep it off
 * the network (no update checks, sync or component downloads) and let it run as root.
 */
export async function launchChromium(options: Parameters<typeof chromium.launchPersistentContext>[1] = {}): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'avawatch-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: executable(),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    ...options,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
