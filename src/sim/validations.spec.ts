import { afterEach, describe, expect, it } from 'vitest';
import { SimClock } from './clock.js';
import { activeValidator, type PeriodInput } from './samples.js';
import { startSim, type SimServer } from './server.js';
import { World } from './world.js';

// The validator lists keep what they rendered between requests (src/sim/validations.ts): a
// list read once must still follow every change of the world and every step of its clock.

const NOW_MS = Date.parse('2026-03-02T12:00:00Z');
const NOW = NOW_MS / 1000;
const DAY = 86_400;
const LIST = '/v1/networks/mainnet/validators';

interface Item {
  nodeId: string;
  txHash: string;
  validationStatus: string;
  startTimestamp: number;
  endTimestamp: number;
  amountStaked: string;
  uptimePerformance?: number;
  rewards?: { validationRewardAmount: string };
}

let sim: SimServer | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const period = (nodeId: string, txHash: string, endInDays: number): PeriodInput => ({ nodeId, txHash, startTimestamp: NOW - 10 * DAY, endTimestamp: NOW + endInDays * DAY });

async function start(build: (w: World) => void): Promise<World> {
  const world = new World(new SimClock(NOW_MS, 0));
  build(world);
  sim = await startSim({ world });
  return world;
}

async function list(path = LIST): Promise<Item[]> {
  const res = await fetch(`${sim!.url}${path}${path.includes('?') ? '&' : '?'}pageSize=100`);
  const body = (await res.json()) as { validators: Item[] };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.validators;
}

const byTx = (items: Item[], txHash: string): Item | undefined => items.find((v) => v.txHash === txHash);

describe('the validator lists, read again', () => {
  it('follow every change of the world after a first read', async () => {
    const world = await start((w) => {
      w.addValidation('mainnet', period('NodeID-a', 'a1', 20), 'active');
      w.addValidation('mainnet', period('NodeID-b', 'b1', 30), 'active');
    });
    expect((await list()).map((v) => [v.txHash, v.uptimePerformance])).toEqual([['a1', 99.93], ['b1', 99.93]]);

    world.updateValidation('NodeID-a', { uptimePerformance: 70 });
    expect(byTx(await list(), 'a1')?.uptimePerformance).toBe(70);
    expect(byTx(await list(`${LIST}/NodeID-a`), 'a1')?.uptimePerformance).toBe(70);

    world.setValidationStatus('NodeID-b', 'completed', 'b1');
    const b = byTx(await list(), 'b1');
    expect(b?.validationStatus).toBe('completed');
    expect(b?.rewards?.validationRewardAmount).toBe('118030412983');

    world.addValidation('mainnet', period('NodeID-c', 'c1', 40), 'pending');
    expect((await list()).map((v) => v.txHash).sort()).toEqual(['a1', 'b1', 'c1']);

    world.setValidators('mainnet', 'NodeID-c', [{ ...activeValidator(period('NodeID-c', 'c2', 40)), uptimePerformance: 12 }]);
    expect((await list()).map((v) => [v.txHash, v.validationStatus, v.uptimePerformance ?? null]).sort()).toEqual([
      ['a1', 'active', 70],
      ['b1', 'completed', null],
      ['c2', 'active', 12],
    ]);
    // A change to the verbatim period renders it again.
    world.updateValidation('NodeID-c', { uptimePerformance: 55 }, 'c2');
    expect(byTx(await list(), 'c2')?.uptimePerformance).toBe(55);
  });

  it("holds its own copies: neither the caller's period nor an item handed out changes what later requests get", async () => {
    const mine = period('NodeID-a', 'a1', 20);
    const world = await start((w) => w.addValidation('mainnet', mine, 'active'));
    mine.uptimePerformance = 1;
    expect(byTx(await list(), 'a1')?.uptimePerformance).toBe(99.93);
    const [first] = world.allValidators('mainnet') as Item[];
    expect(() => Object.assign(first!, { uptimePerformance: 2 })).toThrow(TypeError);
    expect(byTx(await list(), 'a1')?.uptimePerformance).toBe(99.93);
  });

  it('follow the clock: an auto-renewed validation moves to its next cycle, and time remaining counts down', async () => {
    const world = await start((w) => {
      w.addValidation('mainnet', period('NodeID-r', 'r1', 1), 'active', {
        nextPeriod: 30 * DAY,
        compoundShares: 1_000_000,
        authority: { threshold: 1, addresses: ['P-avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsn50c44'] },
        reward: 5_000_000_000n,
        fees: 0n,
      });
      w.addValidation('mainnet', period('NodeID-s', 's1', 3), 'active');
    });
    const before = byTx(await list(), 'r1');
    expect([before?.startTimestamp, before?.endTimestamp, before?.amountStaked]).toEqual([NOW - 10 * DAY, NOW + DAY, '2000000000000']);
    expect((await list(`${LIST}?minTimeRemaining=${2 * DAY}`)).map((v) => v.txHash)).toEqual(['s1']);

    world.clock.advance(2 * DAY * 1000);
    const after = byTx(await list(), 'r1');
    expect([after?.startTimestamp, after?.endTimestamp, after?.amountStaked]).toEqual([NOW + DAY, NOW + 31 * DAY, '2005000000000']);
    expect((await list(`${LIST}?minTimeRemaining=${2 * DAY}`)).map((v) => v.txHash)).toEqual(['r1']);
  });
});
