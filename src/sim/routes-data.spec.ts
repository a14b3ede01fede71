import { afterEach, describe, expect, it } from 'vitest';
import { delegatorsPage, validatorsPage } from '../api/schemas.js';
import { SimClock } from './clock.js';
import { activeValidator, completedValidator, type PeriodInput } from './samples.js';
import { scenarioSchema } from './scenario.js';
import { startSim, type SimServer } from './server.js';
import { World } from './world.js';

// The bulk validator list and the delegators' order, over loopback HTTP on a frozen clock.

const NOW_MS = Date.parse('2026-03-02T12:00:00Z');
const NOW = NOW_MS / 1000;
const DAY = 86_400;
const PRIMARY = '11111111111111111111111111111111LpoYY';
const LIST = '/v1/networks/mainnet/validators';

interface Item {
  nodeId: string;
  txHash: string;
  validationStatus: string;
  subnetId: string;
  startTimestamp: number;
  endTimestamp: number;
  uptimePerformance?: number;
}

let sim: SimServer | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

function period(nodeId: string, txHash: string, startDaysAgo: number, endInDays: number, extra: Partial<PeriodInput> = {}): PeriodInput {
  return { nodeId, txHash, startTimestamp: NOW - startDaysAgo * DAY, endTimestamp: NOW + endInDays * DAY, ...extra };
}

async function simWith(build: (w: World) => void): Promise<SimServer> {
  const world = new World(new SimClock(NOW_MS, 0));
  build(world);
  sim = await startSim({ world });
  return sim;
}

async function get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${sim!.url}${path}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function items(path: string): Promise<Item[]> {
  const { status, body } = await get(path);
  expect(status, JSON.stringify(body)).toBe(200);
  expect(body['nextPageToken'], 'one page expected').toBeUndefined();
  return body['validators'] as Item[];
}

const tx = (list: Item[]): string[] => list.map((v) => v.txHash);

async function post(path: string, body: unknown): Promise<number> {
  return (await fetch(`${sim!.url}${path}`, { method: 'POST', body: JSON.stringify(body) })).status;
}

describe('GET /v1/networks/{network}/validators', () => {
  it('matches nodeIds as substrings, ignoring empty entries; the per-node route stays exact', async () => {
    await simWith((w) => {
      w.addValidation('mainnet', period('NodeID-abc', 'a1', 10, 10), 'active');
      w.addValidation('mainnet', period('NodeID-abcdef', 'b1', 9, 10), 'active');
      w.addValidation('mainnet', period('NodeID-xyz', 'x1', 8, 10), 'active');
    });
    expect(tx(await items(`${LIST}?nodeIds=NodeID-abc`))).toEqual(['b1', 'a1']);
    expect(tx(await items(`${LIST}?nodeIds=${encodeURIComponent(',NodeID-xyz,,')}`))).toEqual(['x1']);
    expect(tx(await items(`${LIST}?nodeIds=def,xyz`))).toEqual(['x1', 'b1']);
    expect(tx(await items(`${LIST}?nodeIds=,`))).toHaveLength(3);
    expect(tx(await items(`${LIST}/NodeID-abc`))).toEqual(['a1']);
  });

  it('filters by validationStatus and subnetId; without them every status and subnet comes back', async () => {
    await simWith((w) => {
      w.addValidation('mainnet', period('NodeID-a', 'a-old', 400, -35), 'completed');
      w.addValidation('mainnet', period('NodeID-a', 'a-now', 30, 2), 'active');
      w.addValidation('mainnet', period('NodeID-p', 'p1', -1, 20), 'pending');
      w.addValidation('mainnet', period('NodeID-r', 'r1', 20, 10, { subnetId: 'subnet-x' }), 'removed');
    });
    expect(new Set((await items(LIST)).map((v) => v.validationStatus))).toEqual(new Set(['completed', 'active', 'pending', 'removed']));
    expect(tx(await items(`${LIST}?validationStatus=completed`))).toEqual(['a-old']);
    expect(tx(await items(`${LIST}?validationStatus=pending`))).toEqual(['p1']);
    expect(tx(await items(`${LIST}?subnetId=subnet-x`))).toEqual(['r1']);
    expect(tx(await items(`${LIST}?subnetId=${PRIMARY}&validationStatus=active`))).toEqual(['a-now']);
    expect(tx(await items(`${LIST}?subnetId=${PRIMARY}`))).toEqual(['p1', 'a-now', 'a-old']);
  });

  it('serves fuji and testnet as one network, and nothing of theirs on mainnet', async () => {
    await simWith((w) => {
      w.addValidation('testnet', period('NodeID-f', 'f0', 40, -4), 'completed');
      w.addValidation('fuji', period('NodeID-f', 'f1', 3, 14), 'active');
    });
    expect(tx(await items('/v1/networks/fuji/validators'))).toEqual(['f1', 'f0']);
    expect(tx(await items('/v1/networks/testnet/validators'))).toEqual(['f1', 'f0']);
    expect(await items(LIST)).toEqual([]);
  });

  it('pages every period once, newest first, equal starts by nodeId then txHash', async () => {
    // 25 periods, five to a start time, added in no particular order.
    await simWith((w) => {
      for (let i = 24; i >= 0; i--) w.addValidation('mainnet', period(`NodeID-${i % 3}`, `tx${String(i).padStart(2, '0')}`, Math.floor(i / 5), 10), 'active');
    });
    const seen: Item[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const { status, body } = await get(`${LIST}?pageSize=10${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`);
      expect(status).toBe(200);
      seen.push(...(body['validators'] as Item[]));
      token = body['nextPageToken'] as string | undefined;
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(new Set(tx(seen)).size).toBe(25);
    const expected = [...seen].sort((a, b) => b.startTimestamp - a.startTimestamp || a.nodeId.localeCompare(b.nodeId) || a.txHash.localeCompare(b.txHash));
    expect(tx(seen)).toEqual(tx(expected));
    const asc = await get(`${LIST}?pageSize=100&sortOrder=asc`);
    expect(tx(asc.body['validators'] as Item[]).slice(0, 5)).toEqual(tx(expected.slice(20).sort((a, b) => a.nodeId.localeCompare(b.nodeId) || a.txHash.localeCompare(b.txHash))));
  });

  it('sorts by uptimePerformance and timeRemaining (periods without the value last), and bounds both', async () => {
    await simWith((w) => {
      w.addValidation('mainnet', period('NodeID-hi', 'hi', 30, 5, { uptimePerformance: 99.5 }), 'active');
      w.addValidation('mainnet', period('NodeID-mid', 'mid', 30, 1, { uptimePerformance: 91 }), 'active');
      w.addValidation('mainnet', period('NodeID-lo', 'lo', 30, 20, { uptimePerformance: 60 }), 'active');
      w.addValidation('mainnet', period('NodeID-done', 'done', 400, -30), 'completed');
    });
    expect(tx(await items(`${LIST}?sortBy=uptimePerformance`))).toEqual(['hi', 'mid', 'lo', 'done']);
    expect(tx(await items(`${LIST}?sortBy=uptimePerformance&sortOrder=asc`))).toEqual(['lo', 'mid', 'hi', 'done']);
    expect(tx(await items(`${LIST}?sortBy=timeRemaining&sortOrder=asc`))).toEqual(['done', 'mid', 'hi', 'lo']);
    expect(tx(await items(`${LIST}?sortBy=timeRemaining`))).toEqual(['lo', 'hi', 'mid', 'done']);
    // Uptime is only on active periods: the completed one passes the uptime bounds.
    expect(tx(await items(`${LIST}?minUptimePerformance=90&maxUptimePerformance=99`))).toEqual(['mid', 'done']);
    expect(tx(await items(`${LIST}?minTimeRemaining=${2 * DAY}&maxTimeRemaining=${10 * DAY}`))).toEqual(['hi']);
    expect(tx(await items(`${LIST}?maxTimeRemaining=0`))).toEqual(['done']);
  });

  it('with a default uptime floor, hides a low-uptime active node unless minUptimePerformance is sent', async () => {
    await simWith((w) => w.addValidation('mainnet', period('NodeID-good', 'good', 30, 5), 'active'));
    // Through the control API, as a scenario or a rule test would set it.
    expect(
      await post('/_sim/change', {
        validations: [
          { nodeId: 'NodeID-poor', txHash: 'poor', start: '-20d', end: '+5d', status: 'active', uptimePerformance: 72.5 },
          { nodeId: 'NodeID-poor', txHash: 'poor-old', start: '-400d', end: '-25d', status: 'completed' },
        ],
      }),
    ).toBe(200);
    expect(tx(await items(LIST))).toEqual(['poor', 'good', 'poor-old']);
    expect(await post('/_sim/change', { bulkDefaultMinUptime: 90 })).toBe(200);
    expect(sim!.world.bulkDefaultMinUptime).toBe(90);
    expect(tx(await items(LIST))).toEqual(['good', 'poor-old']);
    expect(tx(await items(`${LIST}?nodeIds=NodeID-poor&validationStatus=active`))).toEqual([]);
    expect(tx(await items(`${LIST}?nodeIds=NodeID-poor&validationStatus=active&minUptimePerformance=0`))).toEqual(['poor']);
    expect(tx(await items(`${LIST}?minUptimePerformance=0`))).toEqual(['poor', 'good', 'poor-old']);
    // The per-node route knows no floor.
    expect(tx(await items('/v1/networks/mainnet/validators/NodeID-poor'))).toEqual(['poor', 'poor-old']);
    expect(await post('/_sim/change', { bulkDefaultMinUptime: null })).toBe(200);
    expect(tx(await items(LIST))).toEqual(['poor', 'good', 'poor-old']);
  });

  it('answers 400 in the service error shape for a bad pageSize, sortBy, sortOrder, status, number or network', async () => {
    await simWith(() => {});
    for (const [query, message] of [
      ['pageSize=0', 'pageSize must not be less than 1'],
      ['pageSize=101', 'pageSize must not be greater than 100'],
      ['pageSize=ten', 'pageSize must not be less than 1'],
      ['sortBy=stake', 'sortBy must be one of the following values: blockIndex, delegationCapacity, timeRemaining, delegationFee, uptimePerformance'],
      ['sortOrder=newest', 'sortOrder must be one of the following values: asc, desc'],
      ['validationStatus=gone', 'validationStatus must be one of the following values: completed, active, pending, removed'],
      ['minUptimePerformance=high', 'minUptimePerformance must be a number conforming to the specified constraints'],
      ['maxTimeRemaining=', 'maxTimeRemaining must be a number conforming to the specified constraints'],
    ]) {
      const { status, body } = await get(`${LIST}?${query}`);
      expect(status, query).toBe(400);
      expect(body, query).toMatchObject({ error: 'Bad Request', statusCode: 400 });
      expect(body['message'], query).toContain(message);
    }
    expect((await get('/v1/networks/devnet/validators')).status).toBe(400);
  });

  it('faults can target the bulk list alone (anchored path) or the pages asking for one node (query)', async () => {
    await simWith((w) => {
      w.addValidation('mainnet', period('NodeID-a', 'a1', 10, 10), 'active');
      w.addValidation('mainnet', period('NodeID-b', 'b1', 10, 10), 'active');
    });
    sim!.world.faults.push({ status: 503, pathMatches: '/validators$' });
    expect((await get(`${LIST}/NodeID-a`)).status).toBe(200);
    expect((await get(LIST)).status).toBe(503);
    expect((await get(LIST)).status).toBe(200);

    expect(await post('/_sim/faults', [{ status: 500, pathMatches: '/validators$', query: 'NodeID-b' }])).toBe(200);
    expect((await get(`${LIST}?nodeIds=NodeID-a`)).status).toBe(200);
    expect((await get(`${LIST}/NodeID-b`)).status).toBe(200);
    expect((await get(`${LIST}?nodeIds=${encodeURIComponent('NodeID-a,NodeID-b')}`)).status).toBe(500);
    expect(sim!.world.faults).toEqual([]);

    expect(await post('/_sim/faults', [{ status: 500, pathMatches: '/validators(' }])).toBe(400);
  });

  it('a fault with echoHeaders quotes the request\'s headers, the API key among them, in its message', async () => {
    await simWith(() => undefined);
    expect(await post('/_sim/faults', [{ status: 502, pathIncludes: '/signatureAggregator/', echoHeaders: true }])).toBe(200);
    const res = await fetch(`${sim!.url}/v1/signatureAggregator/mainnet/aggregateSignatures/tx1`, { headers: { 'x-glacier-api-key': 'KEY-123456' } });
    expect(res.status).toBe(502);
    expect(((await res.json()) as { message: string }).message).toMatch(/^injected fault; the request's headers: .*x-glacier-api-key: KEY-123456/);
  });
});

describe('GET /v1/networks/{network}/delegators', () => {
  it('orders by start in either sortOrder, equal starts by txHash, and pages without gaps', async () => {
    await simWith((w) => {
      for (const [txHash, daysAgo] of [['d3', 1], ['d1', 2], ['d4', 2], ['d2', 2], ['d0', 3]] as const) {
        w.addDelegation('mainnet', { txHash, nodeId: 'NodeID-a', rewardAddresses: ['avax1x'], amountDelegated: '25000000000', startTimestamp: NOW - daysAgo * DAY, endTimestamp: NOW + DAY }, 'active');
      }
    });
    const walk = async (order: string): Promise<string[]> => {
      const out: string[] = [];
      let token: string | undefined;
      do {
        const { body } = await get(`/v1/networks/mainnet/delegators?nodeIds=NodeID-a&pageSize=2&sortOrder=${order}${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`);
        out.push(...(body['delegators'] as Array<{ txHash: string }>).map((d) => d.txHash));
        token = body['nextPageToken'] as string | undefined;
      } while (token);
      return out;
    };
    expect(await walk('desc')).toEqual(['d3', 'd1', 'd2', 'd4', 'd0']);
    expect(await walk('asc')).toEqual(['d0', 'd1', 'd2', 'd4', 'd3']);
    // Exact nodeIds here: a prefix finds nothing.
    expect((await get('/v1/networks/mainnet/delegators?nodeIds=NodeID-')).body['delegators']).toEqual([]);
  });
});

describe("a node's health, version, delegation capacity and rewards, set by a scenario and changed in place", () => {
  const A = 'NodeID-health-a';
  const B = 'NodeID-health-b';
  const ADDR = 'avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw';
  type Body = Record<string, unknown>;

  async function node(nodeId: string): Promise<Body[]> {
    const { status, body } = await get(`/v1/networks/mainnet/validators/${nodeId}?pageSize=100`);
    expect(status, JSON.stringify(body)).toBe(200);
    // What avawatch itself reads from them, too.
    expect(validatorsPage.safeParse(body).success, JSON.stringify(body)).toBe(true);
    return body['validators'] as Body[];
  }

  async function delegations(): Promise<Record<string, Body>> {
    const { body } = await get('/v1/networks/mainnet/delegators?pageSize=100');
    expect(delegatorsPage.safeParse(body).success, JSON.stringify(body)).toBe(true);
    return Object.fromEntries((body['delegators'] as Body[]).map((d) => [d['txHash'] as string, d]));
  }

  async function change(input: unknown): Promise<{ status: number; message: unknown }> {
    const res = await fetch(`${sim!.url}/_sim/change`, { method: 'POST', body: JSON.stringify(input) });
    return { status: res.status, message: ((await res.json()) as Body)['message'] };
  }

  it('renders the scenario keys, and a validator or delegation change updates them in place', async () => {
    const scenario = scenarioSchema.parse({
      start: '2026-03-02T12:00:00Z',
      speed: 0,
      world: {
        validations: [
          { nodeId: A, txHash: 'a-old', start: '-400d', end: '-31d', status: 'completed', reward: { validation: 0, delegation: '0.5' } },
          {
            nodeId: A,
            txHash: 'a-now',
            start: '-30d',
            end: '+150d',
            uptimePerformance: 97.5,
            version: 'avalanche/1.14.1',
            health: { reachability: 99.5, benchedC: 12 },
            delegationCapacity: '1500.000000001',
          },
          { nodeId: B, txHash: 'b-now', start: '-30d', end: '+150d', status: 'active', version: null },
        ],
        delegations: [
          { txHash: 'd-unpaid', nodeId: A, rewardAddresses: [ADDR], amount: 25, start: '-60d', end: '-31d', status: 'completed', reward: { net: 0 } },
          { txHash: 'd-gross', nodeId: A, rewardAddresses: [ADDR], amount: 25, start: '-60d', end: '-31d', status: 'completed', reward: { gross: '1.5' } },
          { txHash: 'd-open', nodeId: A, rewardAddresses: [ADDR], amount: 25, start: '-1d', end: '+30d', status: 'active', reward: { net: 0 } },
        ],
      },
    });
    sim = await startSim({ scenario });

    const [now, old] = await node(A);
    expect(now).toMatchObject({
      txHash: 'a-now',
      validationStatus: 'active',
      uptimePerformance: 97.5,
      avalancheGoVersion: 'avalanche/1.14.1',
      delegationCapacity: '1500000000001',
      validatorHealth: { reachabilityPercent: 99.5, benchedPChainRequestsPercent: 0, benchedXChainRequestsPercent: 0, benchedCChainRequestsPercent: 12 },
    });
    expect(old).toMatchObject({ txHash: 'a-old', validationStatus: 'completed', rewards: { validationRewardAmount: '0', delegationRewardAmount: '500000000' } });
    // No version: the field is left out (the service's schema has it optional, never null).
    const [b] = await node(B);
    expect(b).not.toHaveProperty('avalancheGoVersion');
    expect(b).toMatchObject({ uptimePerformance: 99.93, delegationCapacity: '6948766000000000', validatorHealth: { reachabilityPercent: 100 } });

    const d = await delegations();
    expect(d['d-unpaid']).toMatchObject({ grossReward: '0', netReward: '0' });
    expect(d['d-gross']).toMatchObject({ grossReward: '1500000000', netReward: '1470000000' });
    // Open delegations keep their computed estimates, and carry no reward fields of completed ones.
    expect(d['d-open']?.['estimatedNetReward']).not.toBe('0');
    expect(d['d-open']).not.toHaveProperty('netReward');

    // In place, on the period that started last: the other health figures stay as they were.
    expect((await change({ validator: { nodeId: A, uptimePerformance: 88.5, version: null, health: { benchedC: 0, benchedP: 30 }, delegationCapacity: 0 } })).status).toBe(200);
    const [changed] = await node(A);
    expect(changed).toMatchObject({
      txHash: 'a-now',
      validationStatus: 'active',
      uptimePerformance: 88.5,
      delegationCapacity: '0',
      validatorHealth: { reachabilityPercent: 99.5, benchedPChainRequestsPercent: 30, benchedXChainRequestsPercent: 0, benchedCChainRequestsPercent: 0 },
    });
    expect(changed).not.toHaveProperty('avalancheGoVersion');
    expect((await change({ validator: { nodeId: A, version: 'avalanche/1.14.2' } })).status).toBe(200);
    expect((await node(A))[0]).toMatchObject({ avalancheGoVersion: 'avalanche/1.14.2', uptimePerformance: 88.5 });

    // Ends without a reward; the delegation reward keeps its default.
    expect((await change({ validator: { nodeId: A, status: 'completed', reward: { validation: 0 } } })).status).toBe(200);
    const [ended] = await node(A);
    expect(ended).toMatchObject({ txHash: 'a-now', validationStatus: 'completed', rewards: { validationRewardAmount: '0', delegationRewardAmount: '7904551002' } });
    // By txHash: the older period.
    expect((await change({ validator: { nodeId: A, txHash: 'a-old', reward: { validation: '118.5' } } })).status).toBe(200);
    expect((await node(A))[1]).toMatchObject({ txHash: 'a-old', rewards: { validationRewardAmount: '118500000000', delegationRewardAmount: '500000000' } });

    expect((await change({ delegation: { txHash: 'd-open', status: 'completed', reward: { gross: 2, net: '1.96' } } })).status).toBe(200);
    expect((await change({ delegation: { txHash: 'd-unpaid', reward: { net: '0.49' } } })).status).toBe(200);
    const after = await delegations();
    expect(after['d-open']).toMatchObject({ delegationStatus: 'completed', grossReward: '2000000000', netReward: '1960000000' });
    // Net alone: the gross is what a 2 % fee leaves that net of.
    expect(after['d-unpaid']).toMatchObject({ delegationStatus: 'completed', grossReward: '500000000', netReward: '490000000' });
  });

  it('a change to a period served verbatim renders it from then on, with what the item held', async () => {
    const p = period(A, 'raw-1', 30, 10, { uptimePerformance: 95 });
    await simWith((w) => w.setValidators('mainnet', A, [{ ...activeValidator(p), stakePercentage: 0.5 }]));
    expect((await node(A))[0]).toMatchObject({ stakePercentage: 0.5 });
    sim!.world.updateValidation(A, { validatorHealth: { benchedXChainRequestsPercent: 40 } });
    const [item] = await node(A);
    expect(item).toMatchObject({ stakePercentage: 0.0071, uptimePerformance: 95, validatorHealth: { benchedXChainRequestsPercent: 40, reachabilityPercent: 100 } });
    sim!.world.updateValidation(A, { status: 'completed', rewards: { validationRewardAmount: '0' } });
    expect((await node(A))[0]).toEqual(completedValidator({ ...p, rewards: { validationRewardAmount: '0' } }));
  });

  it('refuses what it cannot apply, naming the key', async () => {
    await simWith((w) => w.addValidation('mainnet', period(A, 'a1', 30, 10), 'active'));
    for (const [input, key] of [
      [{ validator: { nodeId: A } }, 'validator: nothing to change'],
      [{ validator: { nodeId: A, health: { benchedC: 120 } } }, 'validator.health.benchedC:'],
      [{ validator: { nodeId: A, health: { benched: 10 } } }, 'validator.health:'],
      [{ validator: { nodeId: A, version: 1.14 } }, 'validator.version:'],
      [{ validator: { nodeId: A, reward: { validation: '-1' } } }, 'validator.reward.validation:'],
      [{ validations: [{ nodeId: B, txHash: 'b1', start: '-1d', end: '+1d', delegationCapacity: '1.0000000001' }] }, 'validations.0.delegationCapacity:'],
      [{ delegation: { txHash: 'd1' } }, 'delegation: nothing to change'],
      [{ delegation: { txHash: 'd1', reward: { net: 'none' } } }, 'delegation.reward.net:'],
    ] as const) {
      const { status, message } = await change(input);
      expect(status, JSON.stringify(input)).toBe(400);
      expect(String(message), JSON.stringify(input)).toContain(key);
    }
    expect((await change({ validator: { nodeId: 'NodeID-none', uptimePerformance: 50 } })).message).toContain('no validation period of NodeID-none');
  });
});
