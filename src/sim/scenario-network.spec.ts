import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { DataApi } from '../api/data/index.js';
import { HttpClient } from '../api/http.js';
import { systemClock } from '../base/clock.js';
import { networkBaseline } from '../rules/network-baseline/index.js';
import { spec as specSchema, type State } from '../rules/network-baseline/schema.js';
import { applyChange, worldChange } from './scenario.js';
import { bulkNodeId } from './scenario-network.js';
import { startSim, type SimServer } from './server.js';

// The bulk network as the network baseline sweeps it over loopback: 1,000 validators, 70% of
// them losing uptime and reachability (issue 40's scenario (a)), then back.

const agent = new Agent();

describe('scenario: bulkNetwork and networkDip', () => {
  let sim: SimServer | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it('a network of 1,000, 70% of it dipping, is what the baseline sees; fuji is its own', async () => {
    sim = await startSim();
    const start = sim.world.clock.now() * 1000;
    const change = (c: unknown) => applyChange(sim!.world, worldChange.parse(c), start);
    change({ bulkNetwork: { validators: 1_000 } });
    change({ bulkNetwork: { network: 'fuji', validators: 50, uptime: 95 } });
    const http = new HttpClient({ api: 'data', baseUrl: sim.url, dispatcher: agent, headers: {}, timeoutMs: 10_000, maxResponseBytes: 5_000_000, retries: 0, backoffInitialMs: 1, backoffMaxMs: 1, maxRetryAfterMs: 1, clock: systemClock });
    const data = new DataApi(http, { pageSize: 100, maxPages: 20 });
    const s = specSchema.parse({ network: 'mainnet' });
    let states = new Map<string, State>();
    const sweep = async () => {
      const now = new Date();
      states = networkBaseline.evaluate(states, await networkBaseline.observe(s, { data, signal: new AbortController().signal, now, previous: states } as never), now, s).states;
      return states.get('mainnet')!;
    };

    const before = await sweep();
    expect(before).toMatchObject({ complete: true, count: 1_000 });
    expect(before.whole).toMatchObject({ uptime: { p10: 99.5, p50: 99.5, p90: 99.5 }, versions: { '1.14.1': 1_000 }, below: { uptime: 0, reachability: 0 } });

    change({ networkDip: { share: 70, uptime: 60, reachability: 40 } });
    const dip = await sweep();
    expect(dip.whole).toMatchObject({ count: 1_000, uptime: { p10: 60, p50: 60, p90: 99.5 }, reachability: { p10: 40, p50: 40, p90: 100 }, below: { uptime: 70, reachability: 70 } });
    expect(dip.whole?.nodes[bulkNodeId('mainnet', 0)]?.slice(0, 2)).toEqual([60, 40]);
    expect(dip.whole?.nodes[bulkNodeId('mainnet', 999)]?.slice(0, 2)).toEqual([99.5, 100]);

    change({ networkDip: { share: 100, uptime: 99.5, reachability: 100 } });
    expect((await sweep()).whole).toMatchObject({ uptime: { p50: 99.5 }, below: { uptime: 0, reachability: 0 } });
  }, 30_000);

  it('a dip needs a bulk network to move', () => {
    return startSim().then(async (s) => {
      sim = s;
      expect(() => applyChange(s.world, worldChange.parse({ networkDip: { share: 70, uptime: 60 } }), 0)).toThrow('networkDip: no bulkNetwork on mainnet to move');
    });
  });
});
