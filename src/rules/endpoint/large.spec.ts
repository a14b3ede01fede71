import { Agent } from 'undici';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataApi } from '../../api/data-api.js';
import { HttpClient } from '../../api/http.js';
import { MetricsApi } from '../../api/metrics-api.js';
import { startSim, type SimServer } from '../../sim/server.js';
import type { Evaluation } from '../types.js';
import { endpoint } from './index.js';
import { ExpressionRunner } from './runner.js';
import { spec as specSchema, type State } from './schema.js';

// One page of 90,000 items, read whole in each mode: linear work, the right alerts.

const agent = new Agent();
const PATH = '/v1/networks/mainnet/validators';
const N = 90_000;

function http(baseUrl: string, api: string): HttpClient {
  return new HttpClient({ api, baseUrl, dispatcher: agent, headers: {}, timeoutMs: 10_000, maxResponseBytes: 20_000_000, retries: 0, backoffInitialMs: 1, backoffMaxMs: 1, maxRetryAfterMs: 1 });
}

// expressionTimeout: generous, this checks the result, not the speed (a few seconds, measured apart).
const rule = (extra: Record<string, unknown>) => specSchema.parse({ path: PATH, items: 'validators', key: 'nodeId', maxItems: 100_000, expressionTimeout: '2m', ...extra });
const validators = (n: number, item: (i: number) => Record<string, unknown> = () => ({})) =>
  Array.from({ length: n }, (_, i) => ({ nodeId: `NodeID-${i}`, delegatorCount: i, ...item(i) }));

describe('an endpoint rule over a 90,000-item page', () => {
  // The rule's own expression process, as the engine gives each rule one.
  const expressions = new ExpressionRunner();
  afterAll(() => expressions.stop());

  let sim: SimServer;
  let previous: Record<string, State>;
  beforeEach(async () => {
    sim = await startSim();
    previous = {};
  });
  afterEach(async () => {
    await sim.close();
  });

  /** The next read of the list answers these items. */
  const serve = (items: unknown[]) => sim.world.faults.push({ status: 200, pathMatches: '/validators$', body: JSON.stringify({ validators: items }) });
  async function run(s: ReturnType<typeof rule>): Promise<Evaluation<State>> {
    const data = new DataApi(http(sim.url, 'data'), { pageSize: 100, maxPages: 10 });
    const now = new Date(sim.world.clock.nowMs());
    const observation = await endpoint.observe(s, { data, metrics: new MetricsApi(http(sim.url, 'metrics')), signal: new AbortController().signal, now, previous, expressions });
    const result = endpoint.evaluate(previous, observation, now, s);
    previous = result.states;
    return result;
  }

  it('mode new: one event for the one new item', async () => {
    serve(validators(N));
    expect((await run(rule({ mode: 'new' }))).alerts).toEqual([]);
    expect(Object.keys(previous)).toHaveLength(N + 1);
    serve([{ nodeId: 'NodeID-new', delegatorCount: 1 }, ...validators(N)]);
    expect((await run(rule({ mode: 'new' }))).alerts.map((a) => a.summary)).toEqual([`New item NodeID-new in GET ${PATH}`]);
  }, 120_000);

  it('mode condition: the items that hold, each once', async () => {
    serve(validators(N));
    const { conditions } = await run(rule({ mode: 'condition', condition: 'delegatorCount % 1000 = 999' }));
    expect(conditions).toHaveLength(90);
    expect(conditions?.[89]?.summary).toBe(`NodeID-89999 in GET ${PATH}: delegatorCount % 1000 = 999`);
  }, 120_000);

  it('mode change: one event for the one item changed', async () => {
    serve(validators(N));
    expect((await run(rule({ mode: 'change', field: 'delegatorCount' }))).alerts).toEqual([]);
    serve(validators(N, (i) => (i === 45_000 ? { delegatorCount: 7 } : {})));
    expect((await run(rule({ mode: 'change', field: 'delegatorCount' }))).alerts.map((a) => a.summary)).toEqual([`NodeID-45000 in GET ${PATH}: delegatorCount changed 45000 → 7`]);
  }, 120_000);
});
