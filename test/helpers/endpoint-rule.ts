import { Agent } from 'undici';
import { afterAll, afterEach, beforeEach } from 'vitest';
import { DataApi } from '../../src/api/data/index.js';
import { HttpClient } from '../../src/api/http.js';
import { MetricsApi } from '../../src/api/metrics-api.js';
import { endpoint } from '../../src/rules/endpoint/index.js';
import { ExpressionRunner } from '../../src/rules/endpoint/runner.js';
import type { Spec, State } from '../../src/rules/endpoint/schema.js';
import type { Evaluation } from '../../src/rules/types.js';
import { startSim, type SimServer } from '../../src/sim/server.js';

/**
 * An endpoint rule read against a simulator of its own (started before each test), with the
 * rule's own expression process as the engine gives it: `run` observes and evaluates once,
 * carrying the states to the next run (reset before each test).
 */
export function withEndpointRule(o: { timeoutMs?: number } = {}) {
  const agent = new Agent();
  const expressions = new ExpressionRunner();
  const http = (baseUrl: string, api: string) =>
    new HttpClient({ api, baseUrl, dispatcher: agent, headers: {}, timeoutMs: o.timeoutMs ?? 5_000, maxResponseBytes: 20_000_000, retries: 0, backoffInitialMs: 1, backoffMaxMs: 1, maxRetryAfterMs: 1, clock: fixture.sim.world.clock.asClock() });
  const fixture = {
    sim: undefined as unknown as SimServer,
    previous: new Map() as ReadonlyMap<string, State>,
    async run(s: Spec, { pageSize = 100, signal = new AbortController().signal } = {}): Promise<Evaluation<State>> {
      const data = new DataApi(http(fixture.sim.url, 'data'), { pageSize, maxPages: 10 });
      const now = new Date(fixture.sim.world.clock.nowMs());
      const observation = await endpoint.observe(s, { data, metrics: new MetricsApi(http(fixture.sim.url, 'metrics')), signal, now, previous: fixture.previous, expressions });
      const result = endpoint.evaluate(fixture.previous, observation, now, s);
      fixture.previous = result.states;
      return result;
    },
  };
  beforeEach(async () => {
    fixture.sim = await startSim();
    fixture.previous = new Map();
  });
  afterEach(() => fixture.sim.close());
  afterAll(async () => {
    expressions.stop();
    await agent.close();
  });
  return fixture;
}
