import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  delegatorsPage,
  errorBody,
  icmMessagesPage,
  l1ValidatorsPage,
  metricsPage,
  operation,
  validatorsPage,
} from '../../src/api/schemas.js';
import { loadScenario } from '../../src/sim/scenario.js';
import { startSim, type SimServer } from '../../src/sim/server.js';

const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const ADDRESS = '0xAbC0000000000000000000000000000000000001';

describe('avawatch sim: every endpoint avawatch polls, in the live shapes', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim({ scenario: loadScenario('test/fixtures/sim/world.yaml') });
  });
  afterAll(() => sim.close());

  async function get<T extends z.ZodType>(schema: T, path: string, status = 200): Promise<z.output<T>> {
    const res = await fetch(`${sim.url}${path}`);
    expect(res.status, path).toBe(status);
    return schema.parse(await res.json());
  }

  async function advance(by: string): Promise<void> {
    const res = await fetch(`${sim.url}/_sim/clock`, { method: 'POST', body: JSON.stringify({ advance: by }) });
    expect(res.status).toBe(200);
  }

  it('validators/{nodeId}: every period, status-keyed, newest first; the scenario completes one at +30s', async () => {
    const page = await get(validatorsPage, `/v1/networks/mainnet/validators/${A}?pageSize=100`);
    expect(page.validators.map((v) => [v.txHash, v.validationStatus])).toEqual([
      ['current-period', 'active'],
      ['old-period', 'completed'],
    ]);
    expect((await get(validatorsPage, '/v1/networks/mainnet/validators/NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ')).validators[0]?.validationStatus).toBe('pending');
    expect(await get(errorBody, '/v1/networks/fuji/validators/NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ', 404)).toMatchObject({ statusCode: 404 });
    expect((await get(validatorsPage, '/v1/networks/mainnet/validators/NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu')).validators[0]?.validationStatus).toBe('removed');
    await advance('31s');
    const after = await get(validatorsPage, `/v1/networks/mainnet/validators/${A}?validationStatus=completed`);
    expect(after.validators.map((v) => v.txHash)).toEqual(['current-period', 'old-period']);
  });

  it('pages with opaque tokens and rejects a page size over the limit in the service error shape', async () => {
    const first = await get(validatorsPage, `/v1/networks/mainnet/validators/${A}?pageSize=1`);
    expect(first.validators).toHaveLength(1);
    expect(first.nextPageToken).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const second = await get(validatorsPage, `/v1/networks/mainnet/validators/${A}?pageSize=1&pageToken=${first.nextPageToken}`);
    expect(second.nextPageToken).toBeUndefined();
    const bad = await get(errorBody, `/v1/networks/mainnet/validators/${A}?pageSize=101`, 400);
    expect(bad).toEqual({ message: ['pageSize must not be greater than 100', 'pageSize must not be less than 1'], error: 'Bad Request', statusCode: 400 });
    expect(await get(errorBody, `/v1/networks/mainnet/validators/NodeID-unknown`, 404)).toMatchObject({ statusCode: 404, error: 'Not Found' });
    expect(await get(errorBody, `/v1/networks/moon/validators/${A}`, 400)).toMatchObject({ statusCode: 400 });
  });

  it('delegators: filtered by nodeIds and rewardAddresses (P- prefix accepted), completed ones carry rewards', async () => {
    const byNode = await get(delegatorsPage, `/v1/networks/mainnet/delegators?nodeIds=${A},NodeID-none&pageSize=100`);
    expect(byNode.delegators.map((d) => d.txHash)).toEqual(['del-1']);
    const byAddress = await get(delegatorsPage, '/v1/networks/mainnet/delegators?rewardAddresses=P-avax1other');
    const done = byAddress.delegators[0];
    expect(done?.delegationStatus).toBe('completed');
    expect(done && 'grossReward' in done ? done.grossReward : undefined).toMatch(/^\d+$/);
    expect(done?.amountDelegated).toBe('100500000000');
  });

  it('l1Validators: the balance drains at the fee rate; an emptied validator leaves the active list', async () => {
    const before = await get(l1ValidatorsPage.extend({ blockHeight: z.string() }), '/v1/networks/mainnet/l1Validators');
    expect(before.blockHeight).toMatch(/^\d+$/);
    const balance = Number(before.validators[0]?.remainingBalance);
    await advance('100s');
    const after = await get(l1ValidatorsPage, '/v1/networks/mainnet/l1Validators?subnetId=subnet-1');
    expect(Number(after.validators[0]?.remainingBalance)).toBe(balance - 100_000);
    await advance('20m');
    expect((await get(l1ValidatorsPage, '/v1/networks/mainnet/l1Validators')).validators).toEqual([]);
    const all = await get(l1ValidatorsPage, '/v1/networks/mainnet/l1Validators?includeInactiveL1Validators=true');
    expect(all.validators.map((v) => [v.validationId, v.remainingBalance])).toEqual([['val-1', '0']]);
  });

  it('ICM messages: by address, newest first, each status in its own shape, hostile token names intact', async () => {
    const page = await get(icmMessagesPage, `/v1/icm/addresses/${ADDRESS.toLowerCase()}/messages?network=mainnet`);
    expect(page.messages.map((m) => m.status)).toEqual(['pending', 'delivered', 'delivered_source_not_indexed']);
    expect(page.messages[2]).not.toHaveProperty('sourceTransaction');
    expect(page.messages[0]?.rewardDetails?.name).toBe('<!channel> token');
  });

  it('export: POST answers 201 RUNNING; the operation completes on the third poll', async () => {
    const body = { type: 'TRANSACTION_EXPORT_EVM', firstDate: '2026-03-01', lastDate: '2026-03-02', options: { addresses: [ADDRESS], includeChains: ['43114'] } };
    const res = await fetch(`${sim.url}/v1/operations/transactions:export`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(201);
    const started = operation.parse(await res.json());
    expect(started.operationStatus).toBe('RUNNING');
    const polls = [];
    for (let i = 0; i < 3; i++) polls.push((await get(operation, `/v1/operations/${started.operationId}`)).operationStatus);
    expect(polls).toEqual(['RUNNING', 'RUNNING', 'COMPLETED']);
    const done = await get(operation, `/v1/operations/${started.operationId}`);
    expect(done.metadata?.downloadUrl).toMatch(/^https:\/\//);
    expect(done.createdAtTimestamp).toBeLessThan(1e12); // seconds (a value in ms would be read as seconds too)
    const bad = await fetch(`${sim.url}/v1/operations/transactions:export`, { method: 'POST', body: JSON.stringify({ type: 'X' }) });
    expect(bad.status).toBe(400);
    expect(await get(errorBody, '/v1/operations/op-none', 404)).toMatchObject({ statusCode: 404 });
  });

  it('chain metrics: hourly points newest first, the newest still running; day-only metrics refuse hour', async () => {
    const page = await get(metricsPage, '/v2/chains/43114/metrics/txCount?timeInterval=hour&pageSize=3');
    expect(page.results).toHaveLength(3);
    const [newest, previous] = page.results;
    expect(newest!.timestamp - previous!.timestamp).toBe(3600);
    expect(newest!.timestamp % 3600).toBe(0);
    expect(previous!.value).toBe(12000);
    expect(newest!.value).toBeLessThan(12000);
    expect(page.nextPageToken).toBeDefined();
    await advance('2h');
    const dropped = await get(metricsPage, '/v2/chains/43114/metrics/txCount?timeInterval=hour&pageSize=2');
    expect(dropped.results[1]?.value).toBe(50);
    expect(await get(errorBody, '/v2/chains/43114/metrics/avgTps?timeInterval=hour', 400)).toMatchObject({ message: 'avgTps only supports timeInterval=day' });
    expect(await get(errorBody, '/v2/chains/43114/metrics/nope', 400)).toMatchObject({ statusCode: 400 });
  });

  it('answers the other endpoints of the interface with valid shapes', async () => {
    const lists: Array<[string, string]> = [
      ['/v1/networks/mainnet/subnets', 'subnets'],
      ['/v1/networks/mainnet/blockchains/p-chain/transactions:listStaking', 'transactions'],
      ['/v1/networks/mainnet/blockchains/x-chain/assets/AVAX/transactions', 'transactions'],
      [`/v1/networks/mainnet/blockchains/p-chain/nodes/${A}/blocks`, 'blocks'],
      [`/v1/chains/43114/addresses/${ADDRESS}/transactions`, 'transactions'],
      [`/v1/chains/43114/addresses/${ADDRESS}/transactions:listErc20`, 'transactions'],
      [`/v1/chains/43114/addresses/${ADDRESS}/transactions:listErc721`, 'transactions'],
      [`/v1/chains/43114/addresses/${ADDRESS}/transactions:listErc1155`, 'transactions'],
      [`/v1/chains/43114/addresses/${ADDRESS}/transactions:listInternals`, 'transactions'],
      [`/v1/chains/43114/contracts/${ADDRESS}/deployments`, 'contracts'],
      ['/v1/chains/43114/blocks/100/transactions', 'transactions'],
      [`/v1/chains/43114/nfts/collections/${ADDRESS}/tokens`, 'tokens'],
    ];
    for (const [path, key] of lists) {
      const res = await fetch(`${sim.url}${path}`);
      expect(res.status, path).toBe(200);
      expect((await res.json()) as Record<string, unknown>, path).toHaveProperty(key, []);
    }
    const signed = await (await fetch(`${sim.url}/v1/signatureAggregator/mainnet/aggregateSignatures/abc`)).json();
    expect(signed).toEqual({ signedMessage: expect.stringMatching(/^0x[0-9a-f]+$/) });
    const legacy = (await (await fetch(`${sim.url}/v1/avg_tps/43114`)).json()) as { results: unknown[]; status: number; lastRun: number };
    expect(legacy.status).toBe(200);
    expect(legacy.results.length).toBeGreaterThan(0);
  });
});

describe('avawatch sim: budget and faults', () => {
  it('meters compute units per minute and answers 429 with Retry-After when over', async () => {
    const sim = await startSim({ scenario: loadScenario('test/fixtures/sim/world.yaml'), budget: { data: { perMinute: 50, perDay: 1_000 } } });
    try {
      const path = `${sim.url}/v1/networks/mainnet/validators/${A}`;
      const first = await fetch(path);
      expect(first.headers.get('ratelimit-remaining')).toBe('30');
      await fetch(path);
      const over = await fetch(path);
      expect(over.status).toBe(429);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await over.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
      expect(sim.budget.spent.data).toBe(40);
    } finally {
      await sim.close();
    }
  });

  it("meters a known API key on its own plan's windows, with headers that say so; other keys and none on the keyless budget", async () => {
    // Its windows on a standing Date: no minute boundary falls between two requests.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-03-02T12:00:10Z') });
    const sim = await startSim({ scenario: loadScenario('test/fixtures/sim/world.yaml'), budget: { data: { perMinute: 40, perDay: 1_000 } }, keys: { 'KEY-pro': 'pro', 'KEY-tiny': { perMinute: 40, perDay: 30 } } });
    try {
      const path = `${sim.url}/v1/networks/mainnet/validators/${A}`;
      const withKey = (key: string) => fetch(path, { headers: { 'x-glacier-api-key': key } });
      const pro = await withKey('KEY-pro');
      expect([pro.status, pro.headers.get('ratelimit-limit'), pro.headers.get('ratelimit-remaining'), pro.headers.get('ratelimit-policy')]).toEqual([200, '20000', '19980', '20000;w=60, 25000000;w=86400']);
      // The keyless window is untouched by the key's spend; an unknown key counts as none.
      expect((await fetch(path)).headers.get('ratelimit-remaining')).toBe('20');
      expect((await withKey('KEY-unknown')).headers.get('ratelimit-remaining')).toBe('0');
      expect((await fetch(path)).status).toBe(429);
      expect((await withKey('KEY-pro')).headers.get('ratelimit-remaining')).toBe('19960');
      // A key's own day: over it, a 429 until the next UTC day.
      expect((await withKey('KEY-tiny')).status).toBe(200);
      const over = await withKey('KEY-tiny');
      expect([over.status, over.headers.get('ratelimit-limit'), over.headers.get('retry-after')]).toEqual([429, '40', String(12 * 3600 - 10)]);
      expect(sim.budget.spent.data).toBe(100);
    } finally {
      vi.useRealTimers();
      await sim.close();
    }
  });

  it('injects standing faults: repeated page tokens, expired tokens, 5xx, malformed bodies', async () => {
    const sim = await startSim({ scenario: loadScenario('test/fixtures/sim/world.yaml'), seed: 7 });
    const change = (faults: Record<string, unknown>) => fetch(`${sim.url}/_sim/change`, { method: 'POST', body: JSON.stringify({ faults }) });
    try {
      const path = `${sim.url}/v1/networks/mainnet/validators/${A}?pageSize=1`;
      await change({ repeatPageToken: true });
      const one = (await (await fetch(path)).json()) as { nextPageToken: string };
      const two = (await (await fetch(`${path}&pageToken=${one.nextPageToken}`)).json()) as { nextPageToken: string };
      expect(two.nextPageToken).toBe(one.nextPageToken);
      await change({ repeatPageToken: false, expirePageTokens: true });
      const expired = await fetch(`${path}&pageToken=${one.nextPageToken}`);
      expect(expired.status).toBe(400);
      expect(await expired.json()).toMatchObject({ message: 'Page token has expired, restart from the first page' });
      await change({ expirePageTokens: false, errorRate: 1 });
      expect([500, 503]).toContain((await fetch(path)).status);
      await change({ errorRate: 0, malformedRate: 1 });
      const text = await (await fetch(path)).text();
      expect(() => JSON.parse(text)).toThrow();
    } finally {
      await sim.close();
    }
  });
});
