import { describe, expect, it } from 'vitest';
import type { DataApi } from '../../api/data/index.js';
import { validatorListQuery, type ValidatorListQuery } from '../../api/data/primary.js';
import type { MetricsApi } from '../../api/metrics-api.js';
import { advance } from '../../alerts/lifecycle.js';
import { record } from '../../base/record.js';
import { activeValidator } from '../../sim/samples.js';
import { TIERS } from '../../api/limiter.js';
import { estimateBudget } from '../../engine/estimate.js';
import type { LoadedRule } from '../../config/load.js';
import { PRIMARY_NETWORK } from '../fields.js';
import { validatorLookups } from '../validators.js';
import type { Outcome } from '../lookup.js';
import { blockProduction, type Observation, type Read } from './index.js';
import { spec as specSchema, type State } from './schema.js';

const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const B = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const T = 1_800_000_000; // 2027-01-15T08:00:00Z
const s = specSchema.parse({ network: 'mainnet', nodeIds: [A, B], silentFor: { 'c-chain': '3h', 'p-chain': '3d' } });
const at = (t: number) => new Date(t * 1000);
const blocks = (...times: number[]): Read => ({ hour: times.map((t, i) => ({ at: t, number: String(1000 - i) })), complete: true });
/** Every watched node and chain read as `read`, except the ones given. */
function obs(read: Read, except: Record<string, Observation['reads'][string]> = {}): Observation {
  const reads = record<Observation['reads'][string]>();
  for (const n of [A, B]) for (const c of ['c-chain', 'p-chain']) reads[`${n}:${c}`] = read;
  return { reads: { ...reads, ...except } };
}
const run = (prev: ReadonlyMap<string, State>, o: Observation, nowS: number) => blockProduction.evaluate(prev, o, at(nowS), s);

describe('block-production', () => {
  it('watches the chains silentFor names; a chain listed in chains without a duration is refused', () => {
    expect(blockProduction.describe(s)).toBe('mainnet, 2 nodes, silent for longer than P-chain 3d, C-chain 3h');
    const bad = specSchema.safeParse({ network: 'mainnet', nodeIds: [A], chains: ['x-chain'], silentFor: { 'c-chain': '1h' } });
    expect(bad.success ? [] : bad.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual(['silentFor.x-chain: no duration for x-chain: give one, or leave x-chain out of chains']);
    expect(blockProduction.describe(specSchema.parse({ network: 'fuji', nodeIds: [A], silentFor: '6h' }))).toBe('fuji, 1 node, silent for longer than P-chain 6h, C-chain 6h, X-chain 6h');
  });

  it('a baseline with recent blocks says nothing; a node silent past silentFor fires once per chain; a new block resolves it', () => {
    const base = run(new Map(), obs(blocks(T - 600)), T);
    expect(base.conditions).toEqual([]);
    // Three hours and a minute later A's C-chain shows nothing new (B's does).
    const later = T + 3 * 3600 + 60;
    const silent = run(base.states, obs({ hour: [], complete: true }, { [`${B}:c-chain`]: blocks(later - 60) }), later);
    expect(silent.conditions?.map((c) => [c.key, c.summary, c.labels])).toEqual([
      [`${A}:c-chain`, `${A} has proposed no C-chain block for 3h11m (last at 2027-01-15T07:50:00Z), longer than silentFor 3h`, { node: A, network: 'mainnet', chain: 'c-chain' }],
    ]);
    expect(silent.conditions?.[0]?.resolvedSummary).toBe(`${A} proposes C-chain blocks again`);
    const again = run(silent.states, obs(blocks(later + 30)), later + 60);
    expect(again.conditions).toEqual([]);
    // The resolution names the new block; the silence it fired with is only "When it fired".
    const fired = advance([], silent.conditions ?? [], later * 1000);
    const [resolved] = advance(fired.active, again.conditions ?? [], (later + 60) * 1000, undefined, again.resolvedAs).notifications;
    expect(resolved?.summary).toBe(`${A} proposes C-chain blocks again: last at 2027-01-15T11:01:30Z (block 1000)`);
    expect(resolved?.details).toMatchObject({ 'Last proposed block': '2027-01-15T11:01:30Z (block 1000)', 'When it fired: Last proposed block': '2027-01-15T07:50:00Z (block 1000)' });
  });

  it('a node with no block listed is silent since avawatch first looked, never since 1970', () => {
    const none: Read = { hour: [], complete: true, newest: null };
    const base = run(new Map(), obs(blocks(T - 60), { [`${B}:p-chain`]: none }), T);
    expect(base.conditions).toEqual([]);
    expect(base.states.get(`${B}:p-chain`)).toMatchObject({ firstLookedAt: T, hourCount: 0 });
    const day2 = run(base.states, obs(blocks(T + 86_400 * 2), { [`${B}:p-chain`]: { hour: [], complete: true } }), T + 86_400 * 2);
    expect(day2.conditions).toEqual([]);
    const later = T + 3 * 86_400 + 120;
    const c = run(day2.states, obs(blocks(later - 60), { [`${B}:p-chain`]: { hour: [], complete: true } }), later).conditions;
    expect(c?.map((x) => x.summary)).toEqual([
      `${B} has proposed no P-chain block since avawatch first looked, 2027-01-15T08:00:00Z (3d2m; the service lists none of its blocks), longer than silentFor 3d`,
    ]);
    expect(c?.[0]?.details['Last proposed block']).toBe('none listed (watched since 2027-01-15T08:00:00Z)');
  });

  it('a failed read keeps its state and fires nothing, while the other nodes and chains are evaluated', () => {
    const base = run(new Map(), obs(blocks(T - 60)), T);
    const later = T + 4 * 3600;
    const r = run(base.states, obs({ hour: [], complete: true }, { [`${A}:c-chain`]: { failed: 'data API GET …: HTTP 503' } }), later);
    expect(r.failed).toEqual({ [`${A}:c-chain`]: 'data API GET …: HTTP 503' });
    expect(r.states.get(`${A}:c-chain`)).toBe(base.states.get(`${A}:c-chain`));
    // B's C-chain is silent 4h: it fires; A's, unread, does not.
    expect(r.conditions?.map((c) => c.key)).toEqual([`${B}:c-chain`]);
    // What held holds: a firing node whose read fails stays firing (as of its last read).
    const failedAgain = run(r.states, obs({ hour: [], complete: true }, { [`${B}:c-chain`]: { failed: 'timeout' } }), later + 600);
    expect(failedAgain.conditions?.map((c) => [c.key, c.summary])).toEqual([
      [`${A}:c-chain`, `${A} has proposed no C-chain block for 4h11m (last at 2027-01-15T07:59:00Z), longer than silentFor 3h`],
      [`${B}:c-chain`, `${B} has proposed no C-chain block for 4h1m (last at 2027-01-15T07:59:00Z), longer than silentFor 3h`],
    ]);
  });

  it('a block stamped a day ahead is ignored and said in the details: the silent node still fires after silentFor; a real block resolves', () => {
    const base = run(new Map(), obs(blocks(T - 600)), T);
    const odd: Read = { hour: [{ at: T + 86_400, number: '1001' }, { at: T - 600, number: '1000' }], complete: true };
    const glitch = run(base.states, obs(blocks(T - 600), { [`${A}:c-chain`]: odd }), T + 60);
    expect(glitch.states.get(`${A}:c-chain`)).toMatchObject({ lastBlockAt: T - 600, lastBlockNumber: '1000' });
    // The hour lists nothing after that: three hours and more since its last real block.
    const later = T + 3 * 3600;
    const silent = run(glitch.states, obs({ hour: [], complete: true }, { [`${B}:c-chain`]: blocks(later - 60) }), later);
    const c = silent.conditions?.find((x) => x.key === `${A}:c-chain`);
    expect(c?.summary).toBe(`${A} has proposed no C-chain block for 3h10m (last at 2027-01-15T07:50:00Z), longer than silentFor 3h`);
    expect(c?.details['Odd block time']).toBe('block 1001 was listed stamped 2027-01-16T08:00:00Z, 23h59m ahead of the clock (2027-01-15T08:01:00Z): ignored');
    const back = run(silent.states, obs(blocks(later + 30)), later + 60);
    expect(back.conditions).toEqual([]);
    expect(back.states.get(`${A}:c-chain`)?.oddBlock).toBeUndefined();
  });

  it('a block time in milliseconds is read in seconds, said in the details; a silent node then fires after silentFor', () => {
    const base = run(new Map(), obs(blocks(T - 600)), T);
    const ms = run(base.states, obs(blocks(T - 600), { [`${A}:c-chain`]: { hour: [{ at: (T + 30) * 1000, number: '1001' }], complete: true } }), T + 60);
    expect(ms.states.get(`${A}:c-chain`)).toMatchObject({ lastBlockAt: T + 30, lastBlockNumber: '1001' });
    const later = T + 30 + 3 * 3600 + 60;
    const c = run(ms.states, obs({ hour: [], complete: true }), later).conditions?.find((x) => x.key === `${A}:c-chain`);
    expect(c?.summary).toBe(`${A} has proposed no C-chain block for 3h1m (last at 2027-01-15T08:00:30Z), longer than silentFor 3h`);
    expect(c?.details['Odd block time']).toBe('block 1001 was listed stamped 1800000030000, in milliseconds: read as 2027-01-15T08:00:30Z');
  });

  it('the newest block kept is what the service lists now: one listed once and then no more (a glitch) is forgotten', () => {
    const base = run(new Map(), obs(blocks(T - 600)), T);
    const glitch = run(base.states, obs(blocks(T - 600), { [`${A}:c-chain`]: blocks(T + 30, T - 600) }), T + 60);
    expect(glitch.states.get(`${A}:c-chain`)).toMatchObject({ lastBlockAt: T + 30 });
    // The next read lists only the older block: that is the newest again.
    const after = run(glitch.states, obs(blocks(T - 600)), T + 120);
    expect(after.states.get(`${A}:c-chain`)).toMatchObject({ lastBlockAt: T - 600, lastBlockNumber: '1000' });
    // A state written before (a block a day ahead kept as the newest) follows the service too.
    const stuck: State = { ...(after.states.get(`${A}:c-chain`) as State), lastBlockAt: T + 86_400, lastBlockNumber: '1001' };
    const later = T + 4 * 3600;
    const r = run(new Map([...after.states, [`${A}:c-chain`, stuck]]), obs(blocks(later - 60), { [`${A}:c-chain`]: { hour: [], complete: true, newest: { at: T - 600, number: '1000' } } }), later);
    expect(r.conditions?.map((c) => c.summary)).toEqual([`${A} has proposed no C-chain block for 4h10m (last at 2027-01-15T07:50:00Z), longer than silentFor 3h`]);
  });

  it('gauges the last block time and the last hour count, a lower bound past maxPages', () => {
    const r = run(new Map(), obs(blocks(T - 60, T - 120), { [`${A}:c-chain`]: { ...blocks(T - 10, T - 20, T - 7200), complete: false } }), T);
    const samples = blockProduction.samples(s, r.states, at(T));
    expect(samples.filter((x) => x.labels['node_id'] === A && x.labels['chain'] === 'c-chain')).toEqual([
      { metric: 'avawatch_node_last_proposed_block_timestamp_seconds', labels: { network: 'mainnet', node_id: A, chain: 'c-chain' }, value: T - 10 },
      { metric: 'avawatch_node_blocks_proposed_last_hour', labels: { network: 'mainnet', node_id: A, chain: 'c-chain' }, value: 2 },
    ]);
    const silent = run(r.states, obs({ hour: [], complete: true }), T + 4 * 3600);
    expect(silent.conditions?.find((c) => c.key === `${A}:c-chain`)?.details['Blocks in the last hour']).toBe('0 (at 2027-01-15T12:00:00Z)');
    expect(r.states.get(`${A}:c-chain`)).toMatchObject({ hourCount: 2, hourComplete: false });
  });

  it('costs one call per node and chain, 20 CU each, and the active list the validator kinds read (the very same call: made once)', () => {
    const cost = blockProduction.cost(s);
    expect(cost.calls.length).toBe(5);
    expect(cost.calls.every((c) => c.cu === 20 && c.api === 'data')).toBe(true);
    expect(cost.calls[0]?.key).toBe(`GET /v1/networks/mainnet/blockchains/p-chain/nodes/${A}/blocks?pageSize=100&startTimestamp=now-1h`);
    const shared = validatorLookups({ network: 'mainnet', nodeIds: [B, A], subnetId: PRIMARY_NETWORK }).calls.map((c) => c.key);
    expect(shared).toContain(cost.calls[4]?.key);
    expect(cost.calls[4]?.key).toContain('validationStatus=active');
  });
});

describe('block-production: a node that does not validate proposes no blocks', () => {
  const v = (validating: Record<string, Outcome<number | null>>) => (read: Read, except: Record<string, Observation['reads'][string]> = {}) => ({ ...obs(read, except), validating: new Map(Object.entries(validating)) });
  const validatingSince = (start: number) => v({ [A]: start, [B]: start });
  const silentA: Read = { hour: [], complete: true };

  it('a silent node whose validation ended resolves saying why, keeps its last block, and fires nothing while it does not validate', () => {
    const base = run(new Map(), validatingSince(T - 200 * 86_400)(blocks(T - 600)), T);
    const later = T + 3 * 3600 + 60;
    const silent = run(base.states, validatingSince(T - 200 * 86_400)(silentA, { [`${B}:c-chain`]: blocks(later - 60) }), later);
    expect(silent.conditions?.map((c) => c.key)).toEqual([`${A}:c-chain`]);
    // Its validation ended: no longer listed active (B still validates).
    const endedAt = later + 300;
    const ended = run(silent.states, v({ [A]: null, [B]: T - 200 * 86_400 })(silentA, { [`${B}:c-chain`]: blocks(endedAt - 60) }), endedAt);
    expect(ended.conditions).toEqual([]);
    expect(ended.states.get(`${A}:c-chain`)).toMatchObject({ lastBlockAt: T - 600, periodStart: null });
    const fired = advance([], silent.conditions ?? [], later * 1000);
    const [resolved] = advance(fired.active, ended.conditions ?? [], endedAt * 1000, undefined, ended.resolvedAs).notifications;
    expect(resolved?.summary).toBe(`${A}: validation ended; a node that does not validate proposes no blocks`);
    expect(resolved?.details).toMatchObject({ Validation: 'no active period listed (at 2027-01-15T11:06:00Z)', 'Last proposed block': '2027-01-15T07:50:00Z (block 1000)' });
    // Days later, still not validating and still silent: nothing.
    const days = T + 5 * 86_400;
    expect(run(ended.states, v({ [A]: null, [B]: T - 200 * 86_400 })(silentA, { [`${B}:c-chain`]: blocks(days - 60), [`${B}:p-chain`]: blocks(days - 60) }), days).conditions).toEqual([]);
  });

  it('re-staked 4h after its validation ended (3h silentFor): silent is counted from the new start, never from the last block before the gap', () => {
    const old = T - 200 * 86_400;
    const base = run(new Map(), validatingSince(old)(blocks(T - 600)), T);
    // It ends at once (the last block stands at T - 600); B goes on proposing.
    const gap = run(base.states, v({ [A]: null, [B]: old })(blocks(T - 600), { [`${B}:c-chain`]: blocks(T + 240) }), T + 300);
    expect(gap.conditions).toEqual([]);
    const restake = T + 4 * 3600;
    const step = (prev: ReadonlyMap<string, State>, nowS: number) => run(prev, v({ [A]: restake, [B]: old })(silentA, { [`${B}:c-chain`]: blocks(nowS - 60), [`${B}:p-chain`]: blocks(nowS - 60) }), nowS);
    const back = step(gap.states, restake + 60);
    expect(back.conditions).toEqual([]);
    expect(back.states.get(`${A}:c-chain`)).toMatchObject({ periodStart: restake, lastBlockAt: T - 600 });
    expect(step(back.states, restake + 3 * 3600).conditions).toEqual([]);
    const fire = step(back.states, restake + 3 * 3600 + 60).conditions;
    expect(fire?.map((c) => c.summary)).toEqual([
      `${A} has proposed no C-chain block since its validation started, 2027-01-15T12:00:00Z (3h1m; last at 2027-01-15T07:50:00Z), longer than silentFor 3h`,
    ]);
    expect(fire?.[0]?.details['Validating since']).toBe('2027-01-15T12:00:00Z');
  });

  it('a failed read of the list changes nothing: a validating node fires as before, and a firing one neither resolves', () => {
    const failed = { failed: 'data API GET /v1/networks/mainnet/validators: HTTP 503' };
    const base = run(new Map(), v({ [A]: failed, [B]: failed })(blocks(T - 600)), T);
    expect(base.states.get(`${A}:c-chain`)?.periodStart).toBeUndefined();
    const later = T + 3 * 3600 + 60;
    const silent = run(base.states, v({ [A]: failed, [B]: failed })(silentA, { [`${B}:c-chain`]: blocks(later - 60) }), later);
    expect(silent.conditions?.map((c) => c.summary)).toEqual([`${A} has proposed no C-chain block for 3h11m (last at 2027-01-15T07:50:00Z), longer than silentFor 3h`]);
    // Known validating, then the list fails: still firing (as of what the state knew).
    const known = run(silent.states, validatingSince(T - 86_400)(silentA, { [`${B}:c-chain`]: blocks(later + 240) }), later + 300);
    const again = run(known.states, v({ [A]: failed, [B]: failed })(silentA, { [`${B}:c-chain`]: blocks(later + 540) }), later + 600);
    expect(again.conditions?.map((c) => c.key)).toEqual([`${A}:c-chain`]);
    expect(again.failed).toEqual({});
    // Known not validating, then the list fails: still nothing.
    const off = run(known.states, v({ [A]: null, [B]: T - 86_400 })(silentA, { [`${B}:c-chain`]: blocks(later + 840) }), later + 900);
    expect(run(off.states, v({ [A]: failed, [B]: failed })(silentA, { [`${B}:c-chain`]: blocks(later + 1140) }), later + 1200).conditions).toEqual([]);
  });
});

describe('block-production observe', () => {
  const one = specSchema.parse({ network: 'mainnet', nodeIds: [A], silentFor: { 'c-chain': '3h' } });
  function fakeData(answers: Array<Array<{ blockTimestamp: number; blockNumber: string }>>) {
    const calls: Array<{ startTimestamp?: number; pageSize: number }> = [];
    const data = {
      primary: {
        proposedBlocks: (_n: string, _c: string, _node: string, q: { startTimestamp?: number; pageSize: number }) => {
          calls.push({ ...(q.startTimestamp === undefined ? {} : { startTimestamp: q.startTimestamp }), pageSize: q.pageSize });
          return Promise.resolve({ blocks: answers.shift() ?? [], complete: true });
        },
      },
    } as unknown as DataApi;
    return { data, calls };
  }
  const ctx = (data: DataApi, nowS: number, previous: ReadonlyMap<string, unknown>) => ({ data, metrics: {} as MetricsApi, signal: new AbortController().signal, now: at(nowS), previous });

  it('reads the last hour; asks for the newest block only when the hour is empty and the state cannot say', async () => {
    const first = fakeData([[], [{ blockTimestamp: T - 7200, blockNumber: '7' }]]);
    const o = await blockProduction.observe(one, ctx(first.data, T, new Map()));
    expect(first.calls).toEqual([{ startTimestamp: T - 3600, pageSize: 100 }, { pageSize: 1 }]);
    const st = blockProduction.evaluate(new Map(), o, at(T), one).states;
    expect(st.get(`${A}:c-chain`)).toMatchObject({ lastBlockAt: T - 7200, lastBlockNumber: '7', hourCount: 0 });
    // Read 5 minutes later: the hour covers the gap, the block known stands.
    const next = fakeData([[]]);
    await blockProduction.observe(one, ctx(next.data, T + 300, st));
    expect(next.calls).toEqual([{ startTimestamp: T + 300 - 3600, pageSize: 100 }]);
    // A block known within the hour that the hour no longer lists, or one stamped ahead of the clock: the newest is asked again.
    for (const odd of [{ lastBlockAt: T + 200, lastBlockNumber: '8' }, { lastBlockAt: T + 86_400 }]) {
      const ask = fakeData([[], []]);
      await blockProduction.observe(one, ctx(ask.data, T + 300, new Map([[`${A}:c-chain`, { ...st.get(`${A}:c-chain`), ...odd }]])));
      expect(ask.calls).toEqual([{ startTimestamp: T + 300 - 3600, pageSize: 100 }, { pageSize: 1 }]);
    }
    // After a gap longer than the hour (avawatch was down), the newest block is asked again.
    const gap = fakeData([[], []]);
    await blockProduction.observe(one, ctx(gap.data, T + 7200, st));
    expect(gap.calls).toEqual([{ startTimestamp: T + 7200 - 3600, pageSize: 100 }, { pageSize: 1 }]);
  });

  it('at the first look, a block stamped a day ahead does not hide the real newest block: a node silent for 10h fires at once, naming its last block and the odd one', async () => {
    const ahead = { blockTimestamp: T + 86_400, blockNumber: '1001' };
    const real = { blockTimestamp: T - 10 * 3600, blockNumber: '1000' };
    const { data, calls } = fakeData([[ahead], [ahead], [ahead, real]]);
    const o = await blockProduction.observe(one, ctx(data, T, new Map()));
    // The hour (which lists the block ahead), the newest (the same), then a page of the newest.
    expect(calls).toEqual([{ startTimestamp: T - 3600, pageSize: 100 }, { pageSize: 1 }, { pageSize: 100 }]);
    const r = blockProduction.evaluate(new Map(), o, at(T), one);
    expect(r.states.get(`${A}:c-chain`)).toMatchObject({ firstLookedAt: T, lastBlockAt: T - 10 * 3600, lastBlockNumber: '1000' });
    const [c] = r.conditions ?? [];
    expect(c?.summary).toBe(`${A} has proposed no C-chain block for 10h (last at 2027-01-14T22:00:00Z), longer than silentFor 3h`);
    expect(c?.details['Odd block time']).toBe('block 1001 was listed stamped 2027-01-16T08:00:00Z, 1d ahead of the clock (2027-01-15T08:00:00Z): ignored');
  });

  it('at the first look, a node whose every listed block is ahead of the clock is silent since avawatch first looked, saying why', async () => {
    const ahead = { blockTimestamp: T + 86_400, blockNumber: '1001' };
    const { data } = fakeData([[ahead], [ahead], [ahead]]);
    const o = await blockProduction.observe(one, ctx(data, T, new Map()));
    const later = blockProduction.evaluate(blockProduction.evaluate(new Map(), o, at(T), one).states, { reads: { [`${A}:c-chain`]: { hour: [], complete: true } } }, at(T + 3 * 3600 + 60), one);
    expect(later.conditions?.[0]?.details['Odd block time']).toMatch(/^block 1001 was listed stamped 2027-01-16T08:00:00Z, 1d ahead/);
  });
});

describe('block-production observe: the validator list read beside the block reads', () => {
  it('every block read failing fails the evaluation, and the list read that fails after it is never an unhandled rejection', async () => {
    const one = specSchema.parse({ network: 'mainnet', nodeIds: [A], silentFor: { 'c-chain': '3h' } });
    let failList: (e: Error) => void = () => undefined;
    const data = {
      primary: {
        proposedBlocks: () => Promise.reject(new Error('503 from the blocks endpoint')),
        validatorList: () => new Promise((_, reject) => (failList = reject)),
      },
    } as unknown as DataApi;
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const own = new AbortController();
      await expect(blockProduction.observe(one, { data, metrics: {} as MetricsApi, signal: own.signal, now: at(T), previous: new Map() })).rejects.toThrow('503 from the blocks endpoint');
      // The engine ends the evaluation's own signal; the list read still under way then fails.
      own.abort();
      failList(new Error('aborted: the evaluation ended'));
      await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('block-production observe: whether each node validates', () => {
  const one = specSchema.parse({ network: 'mainnet', nodeIds: [A], silentFor: { 'c-chain': '3h' } });
  const period = (txHash: string, start: number) => activeValidator({ nodeId: A, txHash, startTimestamp: start, endTimestamp: start + 200 * 86_400 });
  function fakeData(listed: Array<ReturnType<typeof period>>, own: Array<ReturnType<typeof period>> | 'not-found') {
    const asked: string[] = [];
    const data = {
      primary: {
        proposedBlocks: () => Promise.resolve({ blocks: [{ blockTimestamp: T - 60, blockNumber: '9' }], complete: true }),
        validatorList: (network: string, q: ValidatorListQuery) => {
          asked.push(`GET /v1/networks/${network}/validators?${new URLSearchParams(validatorListQuery(q)).toString().replaceAll('%2C', ',')}`);
          return Promise.resolve({ periods: listed, broken: [] });
        },
        validatorPeriods: (_n: string, node: string) => {
          asked.push(`own ${node}`);
          return Promise.resolve(own);
        },
      },
    } as unknown as DataApi;
    return { data, asked };
  }
  const ctx = (data: DataApi, previous: ReadonlyMap<string, unknown>) => ({ data, metrics: {} as MetricsApi, signal: new AbortController().signal, now: at(T), previous });
  const stateWith = (periodStart: number | null): ReadonlyMap<string, unknown> => new Map([[`${A}:c-chain`, { nodeId: A, chain: 'c-chain', firstLookedAt: T - 600, checkedAt: T - 300, lastBlockAt: T - 60, hourCount: 1, hourComplete: true, periodStart }]]);

  it('check counts the active list once with validator-health polling every minute: block-production every 5 min adds only its block reads', () => {
    const rule = (name: string, kind: string, spec: Record<string, unknown>, every: number) => ({ name, kind, severity: 'warning', schedule: { everyMs: every }, spec: { ...spec, kind, name, every } }) as unknown as LoadedRule;
    const health = rule('health', 'validator-health', { network: 'mainnet', nodeIds: [A, B] }, 60_000);
    const blocksRule = rule('blocks', 'block-production', { ...one, nodeIds: [B, A] }, 300_000);
    const limits = { data: TIERS.unauthenticated, metrics: TIERS.unauthenticated };
    const alone = estimateBudget([health], limits).apis[0]?.perDay ?? 0;
    const both = estimateBudget([health, blocksRule], limits);
    expect(both.shared).toBe(1);
    // Two nodes, one chain, 288 polls a day, 20 CU: the list costs nothing more.
    expect((both.apis[0]?.perDay ?? 0) - alone).toBe(2 * 288 * 20);
  });

  it('asks the very active-list call the validator kinds ask (shared), and the start of the active period is what it lists', async () => {
    const f = fakeData([period('p2', T - 3600)], []);
    const o = await blockProduction.observe(one, ctx(f.data, new Map()));
    const key = validatorLookups({ network: 'mainnet', nodeIds: [A], subnetId: PRIMARY_NETWORK }).calls[0]?.key;
    expect(f.asked).toEqual([key]);
    expect(o.validating).toEqual(new Map([[A, T - 3600]]));
  });

  it('a node that leaves the list is confirmed by its own lookup: still active there, it still validates; not there, it does not', async () => {
    const dropped = fakeData([], [period('p1', T - 86_400)]);
    expect((await blockProduction.observe(one, ctx(dropped.data, stateWith(T - 86_400)))).validating).toEqual(new Map([[A, T - 86_400]]));
    expect(dropped.asked.at(-1)).toBe(`own ${A}`);
    const ended = fakeData([], 'not-found');
    expect((await blockProduction.observe(one, ctx(ended.data, stateWith(T - 86_400)))).validating).toEqual(new Map([[A, null]]));
    // Last seen not validating and still unlisted: nothing more to ask.
    const still = fakeData([], 'not-found');
    expect((await blockProduction.observe(one, ctx(still.data, stateWith(null)))).validating).toEqual(new Map([[A, null]]));
    expect(still.asked).toHaveLength(1);
  });

  it('a start that is no time (1e13) never holds a silent node quiet: silence counts from its last block', async () => {
    const f = fakeData([period('p2', 1e13)], []);
    expect((await blockProduction.observe(one, ctx(f.data, new Map()))).validating).toEqual(new Map([[A, 0]]));
  });
});
