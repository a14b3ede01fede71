import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { composeApp } from '../../src/app/compose.js';
import { GROUPING } from '../../src/commands/init.js';
import { loadConfig } from '../../src/config/load.js';
import { SimClock } from '../../src/sim/clock.js';
import { applyChange, worldChange } from '../../src/sim/scenario.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { World } from '../../src/sim/world.js';
import { startSlackReceiver, type SlackReceiver } from '../helpers/slack-receiver.js';
import { periodMs } from '../../src/base/schedule.js';

// The shipped profile (rules/*.yaml with `validators: all`) and the shipped grouping, on the
// simulator's clock: a validation ending and its re-stake, as one receiver reads them.

const ALPHA = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const START = Date.parse('2026-03-01T00:00:00Z');
const MINUTE = 60_000;
const PROFILE = ['validators.yaml', 'validation-end.yaml', 'validator-health.yaml', 'delegation-end.yaml', 'block-production.yaml'];

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

interface Run {
  app: App;
  world: World;
  slack: SlackReceiver;
  /** Polls as the scheduler would (each rule on its interval's multiples), one minute at a time, delivering what is due. */
  minutes(n: number): Promise<void>;
}

async function start(): Promise<Run> {
  const world = new World(new SimClock(START, 0));
  const change = (c: unknown) => applyChange(world, worldChange.parse(c), START);
  change({
    validations: [{ nodeId: ALPHA, txHash: 'alpha-2025', start: '-360d', end: '+32m', status: 'active', uptimePerformance: 79, version: 'avalanche/1.14.1' }],
    delegations: [{ txHash: 'deleg-1', nodeId: ALPHA, rewardAddresses: ['P-avax1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq'], amount: 25, start: '-100d', end: '+32m' }],
    proposedBlocks: ['c-chain', 'p-chain', 'x-chain'].map((chain) => ({ nodeId: ALPHA, chain, perHour: 60 })),
  });
  const sim: SimServer = await startSim({ world, budget: { data: { perMinute: 1e9, perDay: 1e12 }, metrics: { perMinute: 1e9, perDay: 1e12 } } });
  const slack = await startSlackReceiver();
  const dir = mkdtempSync(join(tmpdir(), 'avawatch-happening-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }), () => sim.close(), () => slack.close());
  const rules = PROFILE.map((f) => JSON.stringify(resolve('rules', f)));
  writeFileSync(
    join(dir, 'avawatch.yaml'),
    [
      'validators:',
      `  - { name: alpha, nodeId: ${ALPHA}, network: mainnet, labels: { team: infra } }`,
      `api: { dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0, timeout: 5s, budget: { perMinute: 1000000000, perDay: 1000000000000 } }`,
      `state: { path: ${JSON.stringify(join(dir, 'state.db'))} }`,
      'receivers:',
      `  - { name: slack, type: slack, webhookUrl: "${slack.webhookUrl}", minInterval: 0s }`,
      'route:',
      '  receivers: [slack]',
      ...GROUPING,
      `ruleFiles: [${rules.join(', ')}]`,
      '',
    ].join('\n'),
  );
  const loaded = loadConfig(join(dir, 'avawatch.yaml'), {});
  const app = composeApp(loaded, { logLevel: 'silent', readable: false, clock: world.clock.asClock() }).app;
  cleanup.push(() => app.stop());
  const minutes = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const m = Math.round((world.clock.nowMs() - START) / MINUTE);
      const due = loaded.rules.filter((r) => m % Math.round((periodMs(r.schedule) ?? MINUTE) / MINUTE) === 0).map((r) => r.name);
      const { failures } = await app.once(due);
      expect(failures.map((f) => `${f.rule}: ${String(f.error)}`)).toEqual([]);
      await app.delivery.drain(0);
      world.clock.advance(MINUTE);
    }
  };
  return { app, world, slack, minutes };
}

function read(post: SlackReceiver['posts'][number]): string {
  return JSON.stringify(post.body.blocks);
}

describe('one happening, one message per receiver (the shipped profile and grouping)', () => {
  it('a validation that ends (with its delegation) and is re-staked two hours later reaches Slack as two messages', async () => {
    const run = await start();
    await run.minutes(20);
    // The baseline: the validation ends within 14 days, and at 79% it cannot be paid any more (80% needed).
    const before = run.slack.posts.length;
    expect(before).toBeGreaterThan(0);

    // The validation and its delegation end at +32m (between two polls of the 5-minute rules); the node stops proposing.
    run.world.clock.advance(START + 32 * MINUTE - run.world.clock.nowMs());
    applyChange(run.world, worldChange.parse({ validator: { nodeId: ALPHA, status: 'completed' }, delegation: { txHash: 'deleg-1', status: 'completed' }, stopProposing: { nodeId: ALPHA, chain: 'c-chain' } }), START);
    await run.minutes(60);
    const ended = run.slack.posts.slice(before);
    expect(ended).toHaveLength(1);
    const text = read(ended[0]!);
    // What each rule saw, in one message about alpha.
    for (const rule of ['my-validators', 'validation-ending', 'validator-health', 'delegations']) expect(text).toContain(rule);
    // Headed (and pushed) by its most urgent alert; the validator it is about and its rules, the most urgent alert's first, below.
    expect(JSON.stringify(ended[0]!.body.blocks[0])).toContain(JSON.stringify(ended[0]!.body.text));
    expect(ended[0]!.body.text).toMatch(/^🟠 WARNING: alpha \(NodeID-.* \(\+4 more\)$/);
    expect(JSON.stringify(ended[0]!.body.blocks[2])).toMatch(/alpha: 5 alerts · validation-ending, my-validators, delegations, validator-health/);

    // Re-staked two hours later: a new period, and blocks again.
    applyChange(run.world, worldChange.parse({
      validations: [{ nodeId: ALPHA, txHash: 'alpha-2026', start: '+150m', end: '+365d', status: 'active', uptimePerformance: 100, version: 'avalanche/1.14.1' }],
      proposedBlocks: [{ nodeId: ALPHA, chain: 'c-chain', perHour: 60, from: '+150m' }],
    }), START);
    await run.minutes(90);
    const all = run.slack.posts.slice(before);
    expect(all).toHaveLength(2);
    expect(read(all[1]!)).toContain('new validation period');
  });
});
