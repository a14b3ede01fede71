import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { avawatch, cleanEnv } from '../helpers/cli.js';
import { expectedProblems } from '../helpers/fixtures.js';

// Every bad config and rule file fixture as `avawatch check` reports it: exactly the fixture's
// `# expect:` lines as file:line:col: path: message, then the count. Each fixture goes through
// the loader and the report the CLI prints (ConfigError.report), in this process; a sample of
// them, and --shard, through the real CLI, which also prints nothing on stdout and exits 1.
// (src/config/load.spec.ts checks the same fixtures' problems against the loader.)

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

/** What `avawatch check` prints to stderr for `config` (the CLI's environment: a fresh machine), in this process. */
function report(config: string): string[] {
  try {
    loadConfig(config, cleanEnv);
  } catch (err) {
    if (err instanceof ConfigError) return err.report().split('\n');
    throw err;
  }
  throw new Error(`${config} loaded without a problem`);
}

function check(config: string, file: string): void {
  const want = expected(file);
  expect(want.length, `${file} states no # expect: line`).toBeGreaterThan(0);
  expect(report(config)).toEqual([...want, `${want.length} problem(s) found; nothing was started`]);
}

/** The same, through the CLI process. */
async function checkCli(config: string, file: string, ...extra: string[]): Promise<void> {
  const want = expected(file);
  expect(want.length, `${file} states no # expect: line`).toBeGreaterThan(0);
  const r = await avawatch(['-c', config, 'check', ...extra], { timeoutMs: 20_000 });
  expect(r.stdout).toBe('');
  expect(r.stderr.trimEnd().split('\n')).toEqual([...want, `${want.length} problem(s) found; nothing was started`]);
  expect(r.code).toBe(1);
}

const main = readdirSync(`${FIXTURES}/main`).sort();
const rules = readdirSync(`${FIXTURES}/rules`).sort();
/** Through the CLI process: a few of each, spread over the list. */
const sample = (names: string[]) => names.filter((_, i) => i % Math.ceil(names.length / 3) === 0);

describe('avawatch check on every fixture', () => {
  it('has at least 30 fixtures, each stating what it must print', () => {
    expect(main.length + rules.length).toBeGreaterThanOrEqual(30);
    for (const name of main) expect(expected(`${FIXTURES}/main/${name}`).length, name).toBeGreaterThan(0);
    for (const name of rules) expect(expected(`${FIXTURES}/rules/${name}`).length, name).toBeGreaterThan(0);
  });

  describe('config files', () => {
    for (const name of main) {
      it(name, () => {
        const file = `${FIXTURES}/main/${name}`;
        check(file, file);
      });
    }
  });

  describe('rule files', () => {
    for (const name of rules) {
      it(name, () => {
        const file = `${FIXTURES}/rules/${name}`;
        check(wrap(file), file);
      });
    }
  });

  describe.concurrent('through the CLI process', () => {
    for (const name of sample(main)) {
      it(`config file ${name}`, async () => {
        const file = `${FIXTURES}/main/${name}`;
        await checkCli(file, file);
      });
    }
    for (const name of sample(rules)) {
      it(`rule file ${name}`, async () => {
        const file = `${FIXTURES}/rules/${name}`;
        await checkCli(wrap(file), file);
      });
    }

    it('--shard changes nothing: a problem in a rule of another shard is reported by every shard', async () => {
      const file = `${FIXTURES}/rules/shard-irrelevant.yaml`;
      const config = wrap(file);
      await Promise.all([checkCli(config, file, '--shard', '1/2'), checkCli(config, file, '--shard', '2/2')]);
    });
  });
});
