import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../api/http.js';
import { DataApi } from '../../api/data/index.js';
import { TIERS } from '../../api/limiter.js';
import { systemClock } from '../../base/clock.js';
import { scheduleOf } from '../../base/schedule.js';
import type { LoadedRule } from '../../config/load.js';
import { estimateBudget } from '../../engine/estimate.js';
import { activeValidator } from '../../sim/samples.js';
import { startSim, type SimServer } from '../../sim/server.js';
import { networkBaseline } from './index.js';
import { spec as specSchema, type State } from './schema.js';

// Done-when of issue 40: the baseline's compute units per day match `check`'s estimate within
// 10%. The sweeps are real: the simulator's network of 2,000 validators, read page by page over
// loopback and metered as the live service meters them.

const agent = new Agent();
const N = 2_000;
const limits = { data: TIERS.unauthenticated, metrics: { perMinute: 8_000, perDay: 1_200_000 } };

describe('network-baseline: compute units', () => {
  let sim: SimServer | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it("a sweep every 10 m of 2,000 validators spends what `check` estimates, within 10%", async () => {
    sim = await startSim();
    for (let i = 0; i < N; i++) {
      const nodeId = `NodeID-Bulk${String(i).padStart(5, '0')}`;
      sim.world.setValidators('mainnet', nodeId, [activeValidator({ nodeId, txHash: `bulk${i}`, startTimestamp: 1_700_000_000 + i, endTimestamp: 1_900_000_000 })]);
    }
    const http = new HttpClient({ api: 'data', baseUrl: sim.url, dispatcher: agent, headers: {}, timeoutMs: 10_000, maxResponseBytes: 5_000_000, retries: 0, backoffInitialMs: 1, backoffMaxMs: 1, maxRetryAfterMs: 1, clock: systemClock });
    const data = new DataApi(http, { pageSize: 100, maxPages: 20 });
    const s = specSchema.parse({ network: 'mainnet', expectValidators: N });
    let states = new Map<string, State>();
    // An hour of sweeps (six, each the whole set), as the daemon makes them; a day is 24 of these.
    const start = Date.parse('2026-11-29T00:00:00Z');
    for (let k = 0; k < 6; k++) {
      const now = new Date(start + k * 600_000);
      const o = await networkBaseline.observe(s, { data, signal: new AbortController().signal, now, previous: states } as never);
      states = networkBaseline.evaluate(states, o, now, s).states;
      expect(states.get('mainnet')).toMatchObject({ complete: true, count: N });
    }
    const spentPerDay = sim.budget.spent.data * 24;
    const rule = { name: 'network-baseline', kind: 'network-baseline', severity: 'warning', schedule: scheduleOf({ every: 600_000 }), spec: { ...s, kind: 'network-baseline', name: 'network-baseline', every: 600_000 } } as unknown as LoadedRule;
    const estimated = estimateBudget([rule], limits).apis[0]!.perDay;
    expect(estimated).toBe(57_600);
    expect(Math.abs(spentPerDay - estimated) / estimated).toBeLessThanOrEqual(0.1);
  }, 60_000);
});
