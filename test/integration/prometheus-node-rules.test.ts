import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

// docs/prometheus/avalanchego.rules.yml: Ava Labs' recommended node alerts for a Prometheus
// that scrapes the nodes, held to its promtool unit tests (avalanchego.rules.test.yml).
const RULES = 'docs/prometheus/avalanchego.rules.yml';
const TESTS = 'docs/prometheus/avalanchego.rules.test.yml';

/** promtool of the Debian package `prometheus`, as test/helpers/prometheus.ts finds it: missing is a failure, not a skip. */
function promtool(args: string[]): { code: number | null; output: string } {
  if (spawnSync('sh', ['-c', 'command -v promtool']).status !== 0) throw new Error('promtool is not installed: run `bash scripts/test-deps.sh` (Debian package prometheus)');
  const r = spawnSync('promtool', args, { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, output: `${r.stdout}${r.stderr}` };
}

interface RuleFile {
  groups: Array<{ rules: Array<{ alert?: string; expr: string }> }>;
}
interface TestFile {
  tests: Array<{ alert_rule_test?: Array<{ alertname: string; exp_alerts?: unknown[] }> }>;
}

const alerts = (parseYaml(readFileSync(RULES, 'utf8')) as RuleFile).groups.flatMap((g) => g.rules.flatMap((r) => (r.alert ? [r.alert] : [])));
const cases = (parseYaml(readFileSync(TESTS, 'utf8')) as TestFile).tests.flatMap((t) => t.alert_rule_test ?? []);

describe('the Prometheus rules file of recommended node alerts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'avawatch-prom-rules-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('`promtool check rules` accepts it', () => {
    const r = promtool(['check', 'rules', RULES]);
    expect(r, r.output).toMatchObject({ code: 0 });
    expect(r.output).toContain(`SUCCESS: ${alerts.length} rules found`);
  });

  it('`promtool test rules` passes, and tests every alert firing and not firing', () => {
    expect(alerts).toHaveLength(11);
    for (const alert of alerts) {
      const mine = cases.filter((c) => c.alertname === alert);
      expect(mine.some((c) => (c.exp_alerts ?? []).length > 0), `${alert}: a case where it fires`).toBe(true);
      expect(mine.some((c) => (c.exp_alerts ?? []).length === 0) || alert.endsWith('Critical'), `${alert}: a case where it does not`).toBe(true);
    }
    const r = promtool(['test', 'rules', TESTS]);
    expect(r, r.output).toMatchObject({ code: 0 });
    expect(r.output).toContain('SUCCESS');
  });

  it('fails when an alert is broken (a level moved)', () => {
    copyFileSync(TESTS, join(dir, 'avalanchego.rules.test.yml'));
    writeFileSync(join(dir, 'avalanchego.rules.yml'), readFileSync(RULES, 'utf8').replace('avalanche_stake_percent_connected < 0.8', 'avalanche_stake_percent_connected < 0.6'));
    const r = promtool(['test', 'rules', join(dir, 'avalanchego.rules.test.yml')]);
    expect(r.code).not.toBe(0);
    expect(r.output).toContain('AvalancheGoConnectedStakeLow');
  });
});
