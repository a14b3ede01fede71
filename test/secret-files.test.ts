import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The README has the operator write secrets to files (a webhook URL): each such file must be
// one git ignores, or the next `git add .` in a clone commits the secret.

const ROOT = join(import.meta.dirname, '..');

/** The files the README's shell examples write with `> FILE`. */
function filesTheReadmeWrites(): string[] {
  const blocks = [...readFileSync(join(ROOT, 'README.md'), 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  return [...new Set(blocks.flatMap((b) => [...b.matchAll(/(?:^|[^>2&])>\s*([\w./-]+)/gm)].map((m) => m[1] as string)))];
}

describe('secret files the README tells you to write', () => {
  it('are ignored by git where the README writes them', () => {
    const files = filesTheReadmeWrites();
    expect(files).toContain('slack.url');
    for (const file of files) {
      const ignored = (() => {
        try {
          execFileSync('git', ['check-ignore', '-q', '--no-index', file], { cwd: ROOT });
          return true;
        } catch {
          return false;
        }
      })();
      expect(ignored, `${file} is written by the README and not ignored by git`).toBe(true);
    }
  });
});
