import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/base/duration.js';
import { loadRuleTest } from '../../src/ruletest/runner.js';
import { SimClock } from '../../src/sim/clock.js';
import { applyChange, loadScenario, worldChange, type WorldChange } from '../../src/sim/scenario.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { World } from '../../src/sim/world.js';
import { catalogue, CATALOGUE_STEPS, EVERY_VARIANT } from './catalogue.js';
import { CONTRACTS, SDK_VERSION, tableDrift } from './sdk-operations.js';
import { Checker, Coverage, entitiesOf, SIM_ROUTES, walk, walkAllMetrics } from './sim-walk.js';

// Every answer the simulator gives, in every state its scenarios reach, read with the SDK
// schema of its operation. A mismatch is the simulator's bug: the SDK is the live contract.

/** The walks send thousands of requests in seconds; the budget has its own tests. */
const UNMETERED = { data: { perMinute: 1e9, perDay: 1e12 }, metrics: { perMinute: 1e9, perDay: 1e12 } };
/** `avawatch demo` runs this scenario (src/commands/demo.ts). */
const DEMO_SCENARIO = 'config/demo/scenario.yaml';
/** With no contracts in any world, this operation can only answer 404. */
const NEVER_2XX = new Set(['/v1/chains/{chainId}/contracts/{address}/transactions:getDeployment']);

const coverage = new Coverage();

async function advance(sim: SimServer, by: string): Promise<void> {
  const res = await fetch(`${sim.url}/_sim/clock`, { method: 'POST', body: JSON.stringify({ advance: by }) });
  expect(res.status, `advance ${by}`).toBe(200);
}

async function change(sim: SimServer, input: Record<string, unknown>): Promise<WorldChange> {
  const res = await fetch(`${sim.url}/_sim/change`, { method: 'POST', body: JSON.stringify(input) });
  expect(res.status, `change ${JSON.stringify(input)}: ${await res.clone().text()}`).toBe(200);
  return worldChange.parse(input);
}

function expectConformance(...checkers: Checker[]): void {
  const findings = checkers.reduce((n, c) => n + c.findings, 0);
  const report = checkers.map((c) => c.report()).filter(Boolean).join('\n');
  expect(findings, `answers that @avalanche-sdk/chainkit ${SDK_VERSION} does not accept:\n${report}\n`).toBe(0);
}

/** The default world, empty; then the catalogue put into it and changed step by step. */
async function walkDefaultWorld(): Promise<Checker> {
  const sim = await startSim({ budget: UNMETERED });
  const c = new Checker(sim, coverage);
  try {
    await walk(c, entitiesOf([]), 'default world');
    await walkAllMetrics(c);
    const changes = [await change(sim, catalogue())];
    await walk(c, entitiesOf(changes), 'catalogue');
    for (const [by, steps] of CATALOGUE_STEPS) {
      await advance(sim, by);
      for (const step of steps) changes.push(await change(sim, step));
      await walk(c, entitiesOf(changes), `catalogue +${by}`);
    }
  } finally {
    await sim.close();
  }
  return c;
}

/** A scenario file walked at its start and after each clock step (its events apply on the way). */
async function walkScenario(file: string, steps: readonly string[]): Promise<Checker> {
  const scenario = loadScenario(file);
  const sim = await startSim({ scenario, budget: UNMETERED });
  const c = new Checker(sim, coverage);
  try {
    const e = entitiesOf([scenario.world, ...scenario.events]);
    await walk(c, e, `${file} at start`);
    for (const step of steps) {
      await advance(sim, step);
      await walk(c, e, `${file} +${step}`);
    }
  } finally {
    await sim.close();
  }
  return c;
}

/** Offsets of rule-test steps, read as the rule-test runner reads them. */
function offsetMs(at: string): number {
  const text = at.trim().replace(/^\+/, '');
  return text === '0' ? 0 : (parseDuration(text) ?? 0);
}

/**
 * A rule test's world on a frozen clock, changed and walked at each step as the runner
 * would. Its recorded `responses` are left out: they are canned bodies, not the simulator's.
 */
async function walkRuleTest(file: string): Promise<Checker> {
  const test = loadRuleTest(file);
  const startMs = Date.parse(test.start);
  const world = new World(new SimClock(startMs, 0));
  applyChange(world, test.world, startMs);
  const sim = await startSim({ world, budget: UNMETERED });
  const c = new Checker(sim, coverage);
  try {
    const e = entitiesOf([test.world, ...test.steps.map((s) => s.change)]);
    for (const step of test.steps) {
      world.clock.advance(Math.max(0, startMs + offsetMs(step.at) - world.clock.nowMs()));
      if (step.change) applyChange(world, step.change, startMs);
      await walk(c, e, `${file} at ${step.at}`);
    }
  } finally {
    await sim.close();
  }
  return c;
}

describe(`simulator conforms to @avalanche-sdk/chainkit ${SDK_VERSION}`, () => {
  it("names each operation's body schema and success status as the SDK's src/funcs/ does", () => {
    expect(tableDrift()).toEqual([]);
  });

  it('the default world: empty, then every kind of item in every status, as time passes', async () => {
    const c = await walkDefaultWorld();
    expectConformance(c);
    expect(
      EVERY_VARIANT.filter((v) => !c.seen.has(v)),
      'variants the walk never saw',
    ).toEqual([]);
  });

  it('test/fixtures/sim/world.yaml, through its events and its L1 validator draining', async () => {
    expectConformance(await walkScenario('test/fixtures/sim/world.yaml', ['31s', '90s', '1m', '20m']));
  });

  it(`the demo's scenario (${DEMO_SCENARIO}), through its events`, async () => {
    // Past each event (+15s, +30s, +35s, +38s, +40s, +45s, +50s, +65s, +70s, +75s, +80s), then a day on.
    expectConformance(await walkScenario(DEMO_SCENARIO, ['16s', '15s', '5s', '3s', '2s', '5s', '5s', '15s', '5s', '5s', '5s', '1d']));
    // Its Mainnet holds a bulk network of 50 (the incidents' part): every page of it is walked.
  }, 60_000);

  it('the worlds of rules/tests/*.test.yaml, at each of their steps', async () => {
    const files = readdirSync('rules/tests')
      .filter((f) => f.endsWith('.test.yaml'))
      .map((f) => join('rules/tests', f));
    expect(files.length).toBeGreaterThan(0);
    const checkers: Checker[] = [];
    for (const file of files) checkers.push(await walkRuleTest(file));
    expectConformance(...checkers);
    // A full walk per step of every rule test: it grows with each kind's test.
  }, 120_000);

  it('reached every route of the simulator, and every operation of the table with a 2xx answer', () => {
    const unreached = SIM_ROUTES.map(([method, pattern]) => `${method} ${pattern}`).filter((r) => !coverage.routes.has(r));
    expect(unreached, 'simulator routes no request reached').toEqual([]);
    const unchecked = CONTRACTS.filter((k) => {
      const statuses = [...(coverage.statuses.get(k.path) ?? [])];
      return NEVER_2XX.has(k.path) ? statuses.length === 0 : !statuses.some((s) => s < 300);
    });
    expect(
      unchecked.map((k) => `${k.method} ${k.path}`),
      'operations never reached (or never checked with a 2xx answer)',
    ).toEqual([]);
  });
});
