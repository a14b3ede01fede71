import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { avawatch } from '../helpers/cli.js';
import { expectedProblems } from '../helpers/fixtures.js';

// Every bad config and rule file fixture through the real CLI: `avawatch check` prints
// exactly the fixture's `# expect:` lines as file:line:col: path: message, then the count,
// prints nothing on stdout, and exits 1. (src/config/load.spec.ts checks the same fixtures
// against the loader; this checks what an operator sees.)

const FIXTURES = 'test/fixtures/config';
const tmp = mkdtempSync(join(tmpdir(), 'avawatch-config-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Each fixture states the exact problems it must produce (test/helpers/fixtures.ts). */
const expected = expectedProblems;

/** A rule file fixture is checked through a config that loads it and nothing else (as load.spec.ts does). */
function wrap(file: string): string {
  const config = join(tmp, `${file.replaceAll('/', '_')}.config.yaml`);
  writeFileSync(config, `receivers: [{name: ops, type: slack, webhookUrl: ""}]\nroute: {receivers: [ops]}\nruleFiles: [${resolve(file)}]\n`);
  return config;
}

async function check(config: string, file: string, ...extra: string[]): Promise<void> {
  const want = expected(file);
  expect(want.length, `${file} states no # expect: line`).toBeGreaterThan(0);
  const r = await avawatch(['-c', config, 'check', ...extra], { timeoutMs: 20_000 });
  expect(r.stdout).toBe('');
  expect(r.stderr.trimEnd().split('\n')).toEqual([...want, `${want.length} problem(s) found; nothing was started`]);
  expect(r.code).toBe(1);
}

const main = readdirSync(`${FIXTURES}/main`).sort();
const rules = readdirSync(`${FIXTURES}/rules`).sort();

describe('avawatch check on every fixture', () => {
  it('has at least 30 fixtures, each stating what it must print', () => {
    expect(main.length + rules.length).toBeGreaterThanOrEqual(30);
    for (const name of main) expect(expected(`${FIXTURES}/main/${name}`).length, name).toBeGreaterThan(0);
    for (const name of rules) expect(expected(`${FIXTURES}/rules/${name}`).length, name).toBeGreaterThan(0);
  });

  describe.concurrent('config files', () => {
    for (const name of main) {
      it(name, async () => {
        const file = `${FIXTURES}/main/${name}`;
        await check(file, file);
      });
    }
  });

  describe.concurrent('rule files', () => {
    for (const name of rules) {
      it(name, async () => {
        const file = `${FIXTURES}/rules/${name}`;
        await check(wrap(file), file);
      });
    }
  });

  it('--shard changes nothing: a problem in a rule of another shard is reported by every shard', async () => {
    const file = `${FIXTURES}/rules/shard-irrelevant.yaml`;
    const config = wrap(file);
    await Promise.all([check(config, file, '--shard', '1/2'), check(config, file, '--shard', '2/2')]);
  });
});
