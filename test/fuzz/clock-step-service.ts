import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { App } from '../../src/app/app.js';
import { composeApp } from '../../src/app/compose.js';
import { loadConfig } from '../../src/config/load.js';
import { SimClock } from '../../src/sim/clock.js';
import { applyChange, worldChange } from '../../src/sim/scenario.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { World } from '../../src/sim/world.js';

// The shipped validator-status rule (every 1m) with the default api.dedupeWindow, on the
// simulator's clock: what the fuzzer's daemon (dedupeWindow 0s) cannot show of shared answers.

export const ALPHA = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const START = Date.parse('2026-03-01T00:00:00Z');

export interface Shipped {
  app: App;
  world: World;
  sim: SimServer;
  logs: string[];
  close(): Promise<void>;
}

export async function startShipped(): Promise<Shipped> {
  const world = new World(new SimClock(START, 0));
  applyChange(world, worldChange.parse({ validations: [{ nodeId: ALPHA, txHash: 'alpha-1', start: '-100d', end: '+30d', status: 'active', uptimePerformance: 99, version: 'avalanche/1.14.1' }] }), START);
  const sim = await startSim({ world, budget: { data: { perMinute: 1e9, perDay: 1e12 }, metrics: { perMinute: 1e9, perDay: 1e12 } } });
  const dir = mkdtempSync(join(tmpdir(), 'avawatch-clock-'));
  writeFileSync(
    join(dir, 'avawatch.yaml'),
    [
      'validators:',
      `  - { name: alpha, nodeId: ${ALPHA}, network: mainnet }`,
      `api: { dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0, timeout: 5s, budget: { perMinute: 1000000000, perDay: 1000000000000 } }`,
      `state: { path: ${JSON.stringify(join(dir, 'state.db'))} }`,
      `ruleFiles: [${JSON.stringify(resolve('rules', 'validators.yaml'))}]`,
      '',
    ].join('\n'),
  );
  const logs: string[] = [];
  const app = composeApp(loadConfig(join(dir, 'avawatch.yaml'), {}), { logLevel: 'info', readable: false, clock: world.clock.asClock(), write: (line) => void logs.push(line) }).app;
  return {
    app,
    world,
    sim,
    logs,
    async close() {
      await app.stop();
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
