import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';
import type { App } from '../../src/app/app.js';
import { composeApp } from '../../src/app/compose.js';
import { GROUPING } from '../../src/commands/init.js';
import { loadConfig } from '../../src/config/load.js';
import { periodMs } from '../../src/base/schedule.js';
import { SimClock } from '../../src/sim/clock.js';
import { applyChange, worldChange } from '../../src/sim/scenario.js';
import { startSim } from '../../src/sim/server.js';
import { World } from '../../src/sim/world.js';
import { testNodeId } from './node-ids.js';
import { startSlackReceiver, type SlackReceiver } from './slack-receiver.js';

// Issue 40's world, end to end: a network of 1,000 validators beside an operator's eight (five
// on host h1, three alone), the shipped validator-health and network-baseline rules and the
// shipped grouping, Slack receivers on loopback, on the simulator's clock.

export const START = Date.parse('2026-03-01T00:00:00Z');
const MINUTE = 60_000;
export const FLEET = Array.from({ length: 8 }, (_, i) => ({ name: `v${i + 1}`, nodeId: testNodeId(`incident-${i}`), host: i < 5 ? 'h1' : `h${i - 3}` }));
export const H1 = FLEET.slice(0, 5);
export const OTHERS = FLEET.slice(5);

export interface IncidentRun {
  readonly app: App;
  world: World;
  receivers: SlackReceiver[];
  change(c: unknown): void;
  /** Each receiver's posts since the last call: their text and blocks. */
  take(): string[][];
  /** Polls as the scheduler would (each rule on its interval's multiples), one minute at a time, delivering what is due. */
  minutes(n: number): Promise<void>;
  /** A new daemon process on the same state file. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/**
 * `networkSize`: the bulk network's validators (1,000; fewer runs faster). `tolerate`: rules whose
 * failed polls are expected (a fault played on purpose) rather than a test failure.
 */
export async function startIncidentWorld(o: { receivers?: number; config?: string[]; networkSize?: number; tolerate?: readonly string[] } = {}): Promise<IncidentRun> {
  const world = new World(new SimClock(START, 0));
  const change = (c: unknown) => applyChange(world, worldChange.parse(c), START);
  change({
    bulkNetwork: { network: 'mainnet', validators: o.networkSize ?? 1000 },
    validations: FLEET.map((v) => ({ nodeId: v.nodeId, txHash: `tx-${v.name}`, start: '-100d', end: '+200d', status: 'active', uptimePerformance: 99.5, version: 'avalanche/1.14.1' })),
  });
  const sim = await startSim({ world, budget: { data: { perMinute: 1e9, perDay: 1e12 }, metrics: { perMinute: 1e9, perDay: 1e12 } } });
  const receivers = await Promise.all(Array.from({ length: o.receivers ?? 2 }, () => startSlackReceiver()));
  const dir = mkdtempSync(join(tmpdir(), 'avawatch-incidents-'));
  const rules = ['validator-health.yaml', 'network-baseline.yaml'].map((f) => JSON.stringify(resolve('rules', f)));
  writeFileSync(
    join(dir, 'avawatch.yaml'),
    [
      'validators:',
      ...FLEET.map((v) => `  - { name: ${v.name}, nodeId: ${v.nodeId}, network: mainnet, labels: { host: ${v.host} } }`),
      `api: { dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0, timeout: 5s, budget: { perMinute: 1000000000, perDay: 1000000000000 } }`,
      `state: { path: ${JSON.stringify(join(dir, 'state.db'))} }`,
      ...(o.config ?? []),
      'receivers:',
      ...receivers.map((r, i) => `  - { name: slack-${i}, type: slack, webhookUrl: "${r.webhookUrl}", minInterval: 0s }`),
      'route:',
      `  receivers: [${receivers.map((_, i) => `slack-${i}`).join(', ')}]`,
      ...GROUPING,
      `ruleFiles: [${rules.join(', ')}]`,
      '',
    ].join('\n'),
  );
  const loaded = loadConfig(join(dir, 'avawatch.yaml'), {});
  const make = () => composeApp(loaded, { logLevel: 'silent', readable: false, clock: world.clock.asClock() }).app;
  let app = make();
  const seen = receivers.map(() => 0);
  return {
    get app() {
      return app;
    },
    world,
    receivers,
    change,
    take: () =>
      receivers.map((r, i) => {
        const posts = r.posts.slice(seen[i]).map((p) => `${p.body.text}\n${JSON.stringify(p.body.blocks)}`);
        seen[i] = r.posts.length;
        return posts;
      }),
    minutes: async (n) => {
      for (let i = 0; i < n; i++) {
        const m = Math.round((world.clock.nowMs() - START) / MINUTE);
        const due = loaded.rules.filter((r) => m % Math.round((periodMs(r.schedule) ?? MINUTE) / MINUTE) === 0).map((r) => r.name);
        const { failures } = await app.once(due);
        expect(failures.filter((f) => !o.tolerate?.includes(f.rule)).map((f) => `${f.rule}: ${String(f.error)}`)).toEqual([]);
        await app.delivery.drain(0);
        world.clock.advance(MINUTE);
      }
    },
    restart: async () => {
      await app.stop();
      app = make();
    },
    close: async () => {
      await app.stop();
      await Promise.all(receivers.map((r) => r.close()));
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
