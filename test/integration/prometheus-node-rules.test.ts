import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { expectedRatio, pollCasesTestFile, readPollCases } from '../helpers/poll-cases-promtool.js';

// docs/prometheus/avalanchego.rules.yml: Ava Labs' recommended node alerts (and SAE, L1 and
// absence rules) for a Prometheus that scrapes the nodes, held to its promtool unit tests
// (avalanchego.rules.test.yml) and to the poll cases it shares with the node-metrics kind.
const RULES = 'docs/prometheus/avalanchego.rules.yml';
const TESTS = 'docs/prometheus/avalanchego.rules.test.yml';

/** promtool of the Debian package `prometheus`, as test/helpers/prometheus.ts finds it: missing is a failure, not a skip. */
function promtool(args: string[]): { code: number | null; output: string } {
  if (spawnSync('sh', ['-c', 'command -v promtool']).status !== 0) throw new Error('promtool is not installed: run `bash scripts/test-deps.sh` (Debian package prometheus)');
  // stdout and stderr into one file, in the order promtool writes them: a failure's details
  // (stderr) follow the "Unit Testing:" line of their file (stdout).
  const out = join(mkdtempSync(join(tmpdir(), 'avawatch-promtool-')), 'output');
  const fd = openSync(out, 'w');
  try {
    const r = spawnSync('promtool', args, { stdio: ['ignore', fd, fd], timeout: 60_000 });
    return { code: r.status, output: readFileSync(out, 'utf8') };
  } finally {
    closeSync(fd);
    rmSync(dirname(out), { recursive: true, force: true });
  }
}

interface RuleFile {
  groups: Array<{ rules: Array<{ alert?: string; record?: string; expr: string }> }>;
}
interface TestGroups {
  tests: unknown[];
}
interface TestFile {
  tests: Array<{ alert_rule_test?: Array<{ alertname: string; exp_alerts?: unknown[] }> }>;
}

const rules = (parseYaml(readFileSync(RULES, 'utf8')) as RuleFile).groups.flatMap((g) => g.rules);
const alerts = rules.flatMap((r) => (r.alert ? [r.alert] : []));
const cases = (parseYaml(readFileSync(TESTS, 'utf8')) as TestFile).tests.flatMap((t) => t.alert_rule_test ?? []);
const pollCases = readPollCases();

/** `make`'s result, made at the first call. */
function lazy<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/** The rules file with `from` replaced by `to`: `from` must be there, so a mutation cannot silently miss. */
function mutated(from: string, to: string): string {
  const text = readFileSync(RULES, 'utf8');
  if (!text.includes(from)) throw new Error(`${RULES} no longer contains ${JSON.stringify(from)}: update this mutation`);
  return text.split(from).join(to);
}

describe('the Prometheus rules file of recommended node alerts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'avawatch-prom-rules-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A directory `name` holding `rulesText` as the rules file, and `tests` (the test files' text by name) beside it. */
  function writeCase(name: string, rulesText: string, tests: Record<string, string>): string[] {
    const sub = join(dir, name);
    rmSync(sub, { recursive: true, force: true });
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, 'avalanchego.rules.yml'), rulesText);
    return Object.entries(tests).map(([file, text]) => {
      writeFileSync(join(sub, file), text);
      return join(sub, file);
    });
  }

  it('`promtool check rules` accepts it', () => {
    const r = promtool(['check', 'rules', RULES]);
    expect(r, r.output).toMatchObject({ code: 0 });
    expect(r.output).toContain(`SUCCESS: ${rules.length} rules found`);
  });

  it('`promtool test rules` passes, and tests every alert firing and not firing', () => {
    expect(alerts).toHaveLength(22);
    for (const alert of alerts) {
      const mine = cases.filter((c) => c.alertname === alert);
      expect(mine.some((c) => (c.exp_alerts ?? []).length > 0), `${alert}: a case where it fires`).toBe(true);
      expect(mine.some((c) => (c.exp_alerts ?? []).length === 0) || alert.endsWith('Critical'), `${alert}: a case where it does not`).toBe(true);
    }
    const r = promtool(['test', 'rules', TESTS]);
    expect(r, r.output).toMatchObject({ code: 0 });
    expect(r.output).toContain('SUCCESS');
  });

  it('passes the poll success cases shared with the node-metrics kind (test/fixtures/node/poll-success-cases.yaml)', () => {
    // The table holds cases that fire each level, one too idle to judge, and quiet ones.
    expect(pollCases.some((c) => c.expect.includes('critical'))).toBe(true);
    expect(pollCases.some((c) => c.tooFew === true && c.expect.length === 0)).toBe(true);
    expect(expectedRatio(pollCases.find((c) => c.tooFew === true) ?? pollCases[0]!)).toBeLessThan(0.9);
    // The shipped test file itself passed in the test above.
    const r = promtool(['test', 'rules', ...writeCase('as-shipped', readFileSync(RULES, 'utf8'), { 'poll-success-cases.test.yml': pollCasesTestFile(pollCases, 'avalanchego.rules.yml') })]);
    expect(r, r.output).toMatchObject({ code: 0 });
    expect(r.output).toContain('SUCCESS');
  });

  // Each broken rule fails its tests, naming the alert (or the case) that went wrong.
  const mutations: Array<{ what: string; from: string; to: string; names: string }> = [
    { what: 'a level moved (connected stake)', from: 'avalanche_stake_percent_connected < 0.8', to: 'avalanche_stake_percent_connected < 0.6', names: 'AvalancheGoConnectedStakeLow' },
    { what: 'the poll guard removed', from: '(instance_chain:avalanche_snowman_polls:rate5m >= 0.2)', to: 'instance_chain:avalanche_snowman_polls:rate5m', names: 'too idle to judge' },
    { what: 'the critical poll level moved', from: 'ratio5m < 0.90', to: 'ratio5m < 0.85', names: 'a busy chain at 86% pages' },
    { what: 'the disk guard removed', from: 'and on (job, instance) avalanche_resource_tracker_disk_available_space > 0', to: '', names: 'AvalancheGoDiskSpaceLow' },
    { what: 'benched peers back at warning', from: 'expr: avalanche_benchlist_benched_num > 1\n        for: 10m\n        labels: { severity: critical }', to: 'expr: avalanche_benchlist_benched_num > 1\n        for: 10m\n        labels: { severity: warning }', names: 'AvalancheGoBenchedPeers' },
    { what: 'bad blocks only under `subnetevm`', from: 'avalanche_.+_vm_eth_chain_block_bad_count', to: 'avalanche_subnetevm_vm_eth_chain_block_bad_count', names: 'AvalancheGoBadBlocks' },
    { what: "an L1's checks counted with the node-wide ones", from: 'avalanche_health_checks_failing{check="health",tag="application"}\n', to: '(0 * avalanche_health_checks_failing{check="health",tag="application"})\n', names: 'AvalancheGoL1HealthChecksFailing' },
    { what: 'polls stopped judged on any chain', from: 'max_over_time(instance_chain:avalanche_snowman_polls:min_rate5m_1h[6h]) >= 0.2', to: 'max_over_time(instance_chain:avalanche_snowman_polls:min_rate5m_1h[6h]) >= 0', names: 'AvalancheGoChainPollsStopped' },
    { what: "SAE's series named as RELEASES.md prints them", from: 'avalanche_evm_transition_sae_', to: 'avalanche_evm_sae_', names: 'AvalancheGoCChainExecutionLagging' },
    { what: 'a stall judged with nothing queued', from: 'execution_queue_blocks{chain="C"} > 0\n', to: 'execution_queue_blocks{chain="C"} >= 0\n', names: 'AvalancheGoCChainExecutorStalled' },
    { what: 'a down node not judged', from: 'up{job="avalanchego"} == 0', to: 'up{job="avalanchego"} < 0', names: 'AvalancheGoNodeDown' },
  ];
  /**
   * Every mutant in one promtool run (a run costs its start and its evaluation loop), each in its
   * own directory with the tests that name what it breaks: the shipped file's and the poll
   * table's test groups that mention `names`. promtool reports each test file under its path.
   */
  const mutantRun = lazy(() => {
    const groups = [...(parseYaml(readFileSync(TESTS, 'utf8')) as TestGroups).tests, ...(parseYaml(pollCasesTestFile(pollCases, 'avalanchego.rules.yml')) as TestGroups).tests];
    const files = mutations.map(({ what, from, to, names }) => {
      const mine = groups.filter((g) => stringify(g).includes(names));
      if (mine.length === 0) throw new Error(`no test group mentions ${JSON.stringify(names)}: update this mutation`);
      const text = stringify({ rule_files: ['avalanchego.rules.yml'], evaluation_interval: '1m', tests: mine });
      return writeCase(what.replace(/\W+/g, '-'), mutated(from, to), { 'mutant.test.yml': text })[0]!;
    });
    const r = promtool(['test', 'rules', ...files]);
    // Each file's part of the output, from its "Unit Testing:" line to the next.
    const parts = new Map(r.output.split(/^(?=Unit Testing:)/m).map((part) => [/^Unit Testing:\s+(\S+)/.exec(part)?.[1] ?? '', part]));
    return { code: r.code, output: r.output, of: (i: number) => parts.get(files[i]!) ?? '' };
  });

  it.each(mutations.map((m, i) => ({ ...m, i })))('fails when the rules are broken: $what', ({ names, i }) => {
    const run = mutantRun();
    expect(run.code, run.output).not.toBe(0);
    const part = run.of(i);
    expect(part, run.output).toMatch(/^Unit Testing:.*\n\s+FAILED:/);
    expect(part).toContain(names);
    // A failed expectation, not a file promtool cannot load.
    expect(part).toMatch(/exp:|expr: /);
    expect(part).not.toMatch(/parse error|could not|error loading/i);
  });
});
