import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { DataApi } from '../../api/data/index.js';
import { HttpClient } from '../../api/http.js';
import { Limiter } from '../../api/limiter.js';
import type { MetricsApi } from '../../api/metrics-api.js';
import { advance } from '../../alerts/lifecycle.js';
import { startSim, type SimServer } from '../../sim/server.js';
import type { Fault } from '../../sim/world.js';
import { signatureAggregator as kind, type Observation } from './index.js';
import { spec as specSchema, type State } from './schema.js';
import { systemClock } from '../../base/clock.js';

const TX = '2sJ6UoPSrqkpdcNWvNFnudjRJdvxVLdXgDaGGD4mfhJm5aULHF';
const TX2 = '2Xz6kLZ5n2Y8mL5M6d6nqR2HtV2o2p5yWkfaQ7ChzZkwSwbVhN';
const T = 1_800_000_000;
const agent = new Agent();

/** The real client against the simulator: retries and sharing on, as the daemon runs it. */
function api(sim: SimServer, o: { timeoutMs?: number; limiter?: Limiter } = {}): DataApi {
  const http = new HttpClient({
    api: 'data',
    baseUrl: sim.url,
    dispatcher: agent,
    headers: {},
    timeoutMs: o.timeoutMs ?? 2_000,
    maxResponseBytes: 1_000_000,
    retries: 3,
    backoffInitialMs: 1,
    backoffMaxMs: 1,
    maxRetryAfterMs: 1,
    dedupeWindowMs: 60_000,
    clock: systemClock,
    ...(o.limiter ? { limiter: o.limiter } : {}),
  });
  return new DataApi(http, { pageSize: 100, maxPages: 10 });
}

describe('signature-aggregator', () => {
  let sim: SimServer;
  afterEach(() => sim.close());
  const s = specSchema.parse({ network: 'mainnet', txHashes: [TX] });
  const observe = (data: DataApi, spec = s, signal = new AbortController().signal) => kind.observe(spec, { data, metrics: {} as MetricsApi, signal, now: new Date(T * 1000), previous: new Map() });
  /** Probes `n` times, one evaluation each (a minute apart), from `states`. */
  /** `n` probes; `fault`, if given, queued for the first (the simulator answers it once). */
  async function probe(data: DataApi, n: number, states: ReadonlyMap<string, State> = new Map(), spec = s, fault?: Fault) {
    if (fault) sim!.world.faults.push(fault);
    let r = kind.evaluate(states, { probes: {} }, new Date(T * 1000), spec);
    for (let i = 0; i < n; i++) r = kind.evaluate(r.states, await observe(data, spec), new Date((T + 60 * i) * 1000), spec);
    return r;
  }

  it('reads the 201 with its signed message as a success: no alert, success 1, the latency in seconds', async () => {
    sim = await startSim();
    const r = await probe(api(sim), 1);
    expect(r.conditions).toEqual([]);
    expect(r.states.get(TX)).toMatchObject({ ok: true, failures: 0 });
    const samples = kind.samples(s, r.states, new Date(T * 1000));
    expect(samples.map((x) => [x.metric, x.labels])).toEqual([
      ['avawatch_signature_aggregator_probe_latency_seconds', { network: 'mainnet', tx_hash: TX }],
      ['avawatch_signature_aggregator_probe_success', { network: 'mainnet', tx_hash: TX }],
    ]);
    expect(samples[1]?.value).toBe(1);
    expect(samples[0]?.value).toBeGreaterThanOrEqual(0);
    expect(samples[0]?.value).toBeLessThan(2);
  });

  it('each probe is one request: never retried past a 503, never answered by the previous probe', async () => {
    sim = await startSim();
    const data = api(sim);
    await probe(data, 1);
    sim.world.faults.push({ status: 503, pathIncludes: 'aggregateSignatures' });
    const r = await probe(data, 1);
    expect(sim.requests.filter((q) => q.includes('aggregateSignatures'))).toHaveLength(2);
    expect(r.states.get(TX)).toMatchObject({ ok: false, failures: 1, how: 'http', status: 503 });
  });

  it('fires after `failures` failed probes in a row, saying what failed and how; a success resolves it', async () => {
    sim = await startSim();
    const data = api(sim);
    sim.world.signatureAggregator.set(TX, { fail: 503 });
    const two = await probe(data, 2);
    expect(two.conditions).toEqual([]);
    const three = await probe(data, 1, two.states);
    expect(three.conditions?.map((c) => [c.key, c.summary, c.labels, c.details['Failure']])).toEqual([
      [TX, `The signature aggregator on mainnet failed 3 probes in a row for ${TX}: HTTP 503: Failed to aggregate signatures: not enough stake weight signed the message`, { tx_hash: TX, network: 'mainnet' }, 'HTTP 503'],
    ]);
    expect(kind.samples(s, three.states, new Date()).find((x) => x.metric.endsWith('success'))?.value).toBe(0);
    sim.world.signatureAggregator.set(TX, { fail: null });
    const ok = await probe(data, 1, three.states);
    expect(ok.conditions).toEqual([]);
    expect(ok.states.get(TX)).toMatchObject({ ok: true, failures: 0 });
    // The resolution says the probe that answered; the failure only under "When it fired".
    const fired = advance([], three.conditions ?? [], T * 1000);
    const [resolved] = advance(fired.active, ok.conditions ?? [], T * 1000 + 60_000, undefined, ok.resolvedAs).notifications;
    expect(resolved?.summary).toBe(`The signature aggregator on mainnet answers for ${TX} again`);
    expect(resolved?.details['Last probe']).toMatch(/, answered$/);
    expect(resolved?.details).toMatchObject({ 'When it fired: Failure': 'HTTP 503' });
  });

  it("a huge error page is quoted as a short excerpt: the service's JSON message, or the title of an HTML page", async () => {
    sim = await startSim();
    const data = api(sim);
    const page = `<!DOCTYPE html>\n<html><head><title>503 Service Temporarily Unavailable</title></head>\n<body>${'<p>upstream connect error or disconnect/reset before headers</p>'.repeat(1_100)}</body></html>`;
    const message = `Failed to aggregate signatures: ${'x'.repeat(64 * 1024)}`;
    for (const [body, quoted] of [
      [page, 'HTTP 503: 503 Service Temporarily Unavailable'],
      // A token longer than the excerpt is left out whole: half a secret would escape the scrubbing.
      [JSON.stringify({ message, statusCode: 503 }), 'HTTP 503: Failed to aggregate signatures: …'],
    ] as const) {
      sim.world.faults.push({ status: 503, pathIncludes: 'aggregateSignatures', body }, { status: 503, pathIncludes: 'aggregateSignatures', body }, { status: 503, pathIncludes: 'aggregateSignatures', body });
      const [c] = (await probe(data, 3)).conditions ?? [];
      const error = c?.details['Error'] ?? '';
      expect(error).toBe(quoted);
      expect(c?.summary).toBe(`The signature aggregator on mainnet failed 3 probes in a row for ${TX}: ${quoted}`);
    }
  });

  it('a timeout and an answer without a signed message are failures, named so', async () => {
    sim = await startSim();
    const odd = await probe(api(sim), 1, new Map(), s, { status: 201, body: '{"message":"ok"}', pathIncludes: 'aggregateSignatures' });
    expect(odd.states.get(TX)).toMatchObject({ ok: false, failures: 1, how: 'malformed' });
    expect(odd.states.get(TX)?.error).toMatch(/^malformed answer: unexpected response: signedMessage: /);
    // An empty signed message signs nothing: a failed probe, counted.
    const empty = await probe(api(sim), 1, odd.states, s, { status: 201, body: '{"signedMessage":""}', pathIncludes: 'aggregateSignatures' });
    expect(empty.states.get(TX)).toMatchObject({ ok: false, failures: 2, how: 'malformed', error: 'malformed answer: the signed message is empty' });
    // A long message from the service is kept to its start, cut between words; a token longer than that is left out whole.
    const long = await probe(api(sim), 1, empty.states, s, { status: 502, body: JSON.stringify({ message: `upstream said: ${'x'.repeat(5_000)}`, statusCode: 502, error: 'Bad Gateway' }), pathIncludes: 'aggregateSignatures' });
    expect(long.states.get(TX)?.error).toBe('HTTP 502: upstream said: …');
    expect(long.conditions?.map((c) => c.summary)).toEqual([`The signature aggregator on mainnet failed 3 probes in a row for ${TX}: HTTP 502: upstream said: …`]);
    // Last: the simulator may read a timed-out request after the client gave up (a loaded
    // machine), and would then spend a fault queued for the next probe on it.
    sim.world.signatureAggregator.set(TX, { latencyMs: 400 });
    const slow = await probe(api(sim, { timeoutMs: 100 }), 1, long.states);
    expect(slow.states.get(TX)).toMatchObject({ ok: false, failures: 4, how: 'timeout', error: 'timeout: no complete response within 100ms' });
    expect(slow.states.get(TX)?.latency).toBeGreaterThanOrEqual(0.09);
  });

  it("the service's 429 and our own budget are not failures: the probe keeps its state and counts nothing", async () => {
    sim = await startSim();
    const both = specSchema.parse({ network: 'mainnet', txHashes: [TX, TX2], failures: 2 });
    sim.world.signatureAggregator.set(TX, { fail: 500 });
    sim.world.signatureAggregator.set(TX2, { fail: 500 });
    const data = api(sim);
    const one = await probe(data, 1, new Map(), both);
    sim.world.faults.push({ status: 429, pathIncludes: TX, retryAfter: 1 });
    const limited = kind.evaluate(one.states, await observe(data, both), new Date((T + 60) * 1000), both);
    expect(Object.keys(limited.failed ?? {})).toEqual([TX]);
    expect(limited.states.get(TX)).toBe(one.states.get(TX));
    // The other txHash was probed meanwhile: its second failure fires.
    expect(limited.conditions?.map((c) => c.key)).toEqual([TX2]);
    // Every probe held back by our budget: nothing was measured, the evaluation fails.
    const spent = new Limiter({ limits: { perMinute: 1_000, perDay: 10 }, clock: systemClock });
    await expect(observe(api(sim, { limiter: spent }), both)).rejects.toThrow(/budget of 10 compute units is spent/);
  });

  it('a probe in flight at shutdown rejects: never a failure of the aggregator', async () => {
    sim = await startSim();
    sim.world.signatureAggregator.set(TX, { latencyMs: 1_000 });
    const stop = new AbortController();
    const pending = observe(api(sim), s, stop.signal);
    setTimeout(() => stop.abort(), 50);
    await expect(pending).rejects.toThrow();
  });

  it('a lookup that failed keeps a firing alert firing', () => {
    const firing: State = { failures: 3, at: T, ok: false, latency: 0.2, error: 'HTTP 500', how: 'http', status: 500, failingSince: T - 120 };
    const o: Observation = { probes: { [TX]: { failed: 'HTTP 429: Rate limit exceeded' } } };
    const r = kind.evaluate(new Map([[TX, firing]]), o, new Date((T + 60) * 1000), s);
    expect(r.conditions?.map((c) => c.summary)).toEqual([`The signature aggregator on mainnet failed 3 probes in a row for ${TX}: HTTP 500`]);
    expect(r.states.get(TX)).toBe(firing);
  });

  it('costs 20 CU per txHash per probe', () => {
    expect(kind.cost(specSchema.parse({ network: 'fuji', txHashes: [TX, TX2] })).calls).toEqual([
      { api: 'data', cu: 20, key: `GET /v1/signatureAggregator/fuji/aggregateSignatures/${TX}` },
      { api: 'data', cu: 20, key: `GET /v1/signatureAggregator/fuji/aggregateSignatures/${TX2}` },
    ]);
  });
});
