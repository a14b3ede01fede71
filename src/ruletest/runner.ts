import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { App } from '../app/app.js';
import { composeApp } from '../app/compose.js';
import { parseDuration } from '../base/duration.js';
import { issuesToProblems } from '../base/issues.js';
import { ConfigError, loadConfig } from '../config/load.js';
import { YamlSource } from '../base/source.js';
import { errorText } from '../engine/engine.js';
import { SimClock } from '../sim/clock.js';
import { applyChange } from '../sim/scenario.js';
import { startSim } from '../sim/server.js';
import { World } from '../sim/world.js';
import { compare, diff } from './match.js';
import { ruleTestSchema, type RuleTest } from './schema.js';

export interface StepResult {
  step: number;
  at: string;
  ok: boolean;
  /** What went wrong, ready to print (a diff, an error). */
  report: string;
}

export interface RuleTestResult {
  file: string;
  ok: boolean;
  steps: StepResult[];
}

export function loadRuleTest(file: string): RuleTest {
  const source = new YamlSource(file, YamlSource.text(file), process.env);
  const problems = [...source.problems];
  const parsed = source.syntaxOk ? ruleTestSchema.safeParse(source.data ?? {}) : undefined;
  if (parsed && !parsed.success) problems.push(...issuesToProblems(source, parsed.error.issues));
  if (!parsed?.success || problems.length > 0) throw new ConfigError(problems);
  parsed.data.steps.forEach((s, i) => {
    if (offsetMs(s.at) === undefined) problems.push(source.problem(['steps', i, 'at'], `"${s.at}" is not a time offset such as 0s, +1m, 2h`));
  });
  if (Number.isNaN(Date.parse(parsed.data.start))) problems.push(source.problem(['start'], `"${parsed.data.start}" is not an ISO date`));
  if (problems.length > 0) throw new ConfigError(problems);
  return parsed.data;
}

/**
 * Runs one rule test: its rule files against an in-process simulator on a frozen clock,
 * with a real state file, evaluating every rule at each step as the daemon would.
 */
export async function runRuleTest(file: string): Promise<RuleTestResult> {
  const test = loadRuleTest(file);
  const startMs = Date.parse(test.start);
  const world = new World(new SimClock(startMs, 0));
  applyChange(world, test.world, startMs);
  const sim = await startSim({ world, budget: { data: { perMinute: 1e9, perDay: 1e12 }, metrics: { perMinute: 1e9, perDay: 1e12 } } });
  const dir = mkdtempSync(join(tmpdir(), 'avawatch-test-'));
  const config = join(dir, 'avawatch.yaml');
  const ruleFiles = test.ruleFiles.map((f) => JSON.stringify(resolve(dirname(file), f)));
  // `api: sim`: the inventory entry reads the simulated node of its NodeID (world `nodes:`).
  const validators = test.validators?.map((v) => (v['api'] === 'sim' ? { ...v, api: `${sim.url}/node/${String(v['nodeId'])}` } : v));
  writeFileSync(
    config,
    `api: {dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0, timeout: 10s}\nstate: {path: ${JSON.stringify(join(dir, 'state.db'))}}\nruleFiles: [${ruleFiles.join(', ')}]\n${validators ? `validators: ${JSON.stringify(validators)}\n` : ''}`,
  );
  const results: StepResult[] = [];
  let app: App | undefined;
  try {
    const loaded = loadConfig(config, process.env, { skipReceiverCheck: true });
    const make = () => composeApp(loaded, { logLevel: 'silent', readable: false, clock: world.clock.asClock() }).app;
    app = make();
    for (const [i, step] of test.steps.entries()) {
      const target = startMs + (offsetMs(step.at) ?? 0);
      const at = step.at;
      if (target < world.clock.nowMs()) {
        results.push({ step: i + 1, at, ok: false, report: `step ${i + 1} goes back in time (${at}); steps must be in order` });
        break;
      }
      world.clock.advance(target - world.clock.nowMs());
      if (step.change) applyChange(world, step.change, startMs);
      for (const r of step.responses) world.faults.push({ status: r.status, body: JSON.stringify(r.body), pathIncludes: r.path });
      if (step.restart) {
        await app.stop();
        app = make();
      }
      const { alerts, failures } = await app.once();
      const lines: string[] = [];
      for (const f of failures) {
        if (!step.failing.includes(f.rule)) lines.push(`rule ${f.rule} failed: ${errorText(f.error)}`);
      }
      for (const name of step.failing) {
        if (!failures.some((f) => f.rule === name)) lines.push(`rule ${name} was expected to fail, and did not`);
      }
      const { missing, unexpected } = compare(step.expect, alerts);
      if (missing.length + unexpected.length > 0) lines.push(diff(missing, unexpected));
      results.push({ step: i + 1, at, ok: lines.length === 0, report: lines.join('\n') });
    }
  } finally {
    await app?.stop();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return { file, ok: results.every((r) => r.ok) && results.length === test.steps.length, steps: results };
}

function offsetMs(at: string): number | undefined {
  const text = at.trim().replace(/^\+/, '');
  return text === '0' ? 0 : parseDuration(text);
}
