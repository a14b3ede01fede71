import { describe, expect, it } from 'vitest';
import type { BrokenItem } from '../api/data/primary.js';
import { validator, type Validator } from '../api/schemas.js';
import { validatorSample } from '../sim/samples.js';
import { PRIMARY_NETWORK } from './fields.js';
import { validationEnd } from './validation-end/index.js';
import { spec as validationEndSpec } from './validation-end/schema.js';
import { validatorStatus } from './validator-status/index.js';
import { spec as statusSpec } from './validator-status/schema.js';
import { inOrder, observeValidators, validatorLookups } from './validators.js';
import { testNodeId } from '../../test/helpers/node-ids.js';

const nodes = Array.from({ length: 150 }, (_, i) => testNodeId(i));
const now = new Date(1_750_000_000_000);
const period = (node: string, status: 'active' | 'completed' | 'pending', tx = `tx-${node}`): Validator =>
  validator.parse(validatorSample[status]({ nodeId: node, txHash: tx, startTimestamp: 1_700_000_000, endTimestamp: 1_800_000_000 }));

/**
 * A DataApi stand-in: the lists answer from `listed` (and the `broken` items with each status),
 * a node's own lookup from `own`; every call is logged.
 */
function fakeData(listed: Validator[], own: Record<string, Validator[] | 'not-found'> = {}, failing: (nodeIds: readonly string[]) => boolean = () => false, broken: BrokenItem[] = []) {
  const calls: string[] = [];
  const data = {
    validatorList: async (_: string, q: { nodeIds: readonly string[]; validationStatus: string }) => {
      calls.push(`list ${q.validationStatus} ${q.nodeIds.length}`);
      if (failing(q.nodeIds)) throw new Error('data API: HTTP 503');
      return { periods: listed.filter((v) => q.nodeIds.includes(v.nodeId) && v.validationStatus === q.validationStatus), broken };
    },
    validatorPeriods: async (_: string, node: string) => {
      calls.push(`own ${node}`);
      const answer = own[node];
      if (answer === undefined) throw new Error(`no answer for ${node}`);
      return answer;
    },
  };
  return { data, calls };
}

const spec = statusSpec.parse({ network: 'mainnet', nodeIds: nodes });
const endSpec = validationEndSpec.parse({ network: 'mainnet', nodeIds: nodes, warnBefore: ['1000d'] });
const ctx = (primary: unknown, previous: ReadonlyMap<string, unknown>) => ({ data: { primary }, previous, signal: new AbortController().signal, now }) as never;

describe('validators read in bulk', () => {
  it('reads 150 active nodes in 2 batches of the active list (no pending list: ACP-41) and asks no node alone', async () => {
    const { data, calls } = fakeData(nodes.map((n) => period(n, 'active')));
    const seen = await observeValidators(spec, ctx(data, new Map()));
    expect(calls.sort()).toEqual(['list active 100', 'list active 50']);
    expect(seen.filter((x) => x !== undefined)).toHaveLength(150);
    expect(validatorLookups(spec).calls).toHaveLength(2);
    expect(validatorLookups(spec).calls.every((c) => c.key.includes('validationStatus=active'))).toBe(true);
  });

  it('a node in no list is asked alone; a pending period is not asked again before its start, and its start is reported from the list', async () => {
    const [waiting] = nodes as [string];
    const startS = now.getTime() / 1000 + 600;
    const pending = validator.parse(validatorSample.pending({ nodeId: waiting, txHash: 'tx-next', startTimestamp: startS, endTimestamp: startS + 30 * 86_400 }));
    const others = nodes.slice(1).map((n) => period(n, 'active'));
    // The first poll: listed nowhere, so its own lookup (every period, any status) says pending.
    const first = fakeData(others, { [waiting]: [pending] });
    const base = validatorStatus.evaluate(new Map(), await observeValidators(spec, ctx(first.data, new Map())), now, spec);
    expect(first.calls.filter((c) => c.startsWith('own'))).toEqual([`own ${waiting}`]);
    expect(base.states.get(waiting)).toMatchObject({ period: { txHash: 'tx-next', status: 'pending' }, missing: false });
    // Until its start: nothing to ask (it cannot be active sooner), nothing changes, no list but active.
    const before = fakeData(others, { [waiting]: [pending] });
    const held = validatorStatus.evaluate(base.states, await observeValidators(spec, ctx(before.data, base.states)), now, spec);
    expect(before.calls.sort()).toEqual(['list active 100', 'list active 50']);
    expect(held.alerts).toEqual([]);
    expect(held.states.get(waiting)).toEqual(base.states.get(waiting));
    // Its start passed and the list shows it: reported from the list, not asked alone.
    const later = new Date((startS + 60) * 1000);
    const started = fakeData([...others, { ...pending, validationStatus: 'active' } as Validator]);
    const seen = await observeValidators(spec, { ...(ctx(started.data, held.states) as object), now: later } as never);
    expect(started.calls.some((c) => c.startsWith('own'))).toBe(false);
    expect(validatorStatus.evaluate(held.states, seen, later, spec).alerts.map((a) => a.summary)).toEqual([`${waiting} validation pending → active`]);
    // Its start passed and no list shows it: its own lookup says what it is (here: still pending).
    const unlisted = fakeData(others, { [waiting]: [pending] });
    const asked = validatorStatus.evaluate(held.states, await observeValidators(spec, { ...(ctx(unlisted.data, held.states) as object), now: later } as never), later, spec);
    expect(unlisted.calls.filter((c) => c.startsWith('own'))).toEqual([`own ${waiting}`]);
    expect(asked.alerts).toEqual([]);
  });

  it('a node absent from the lists whose own lookup says active is not reported', async () => {
    const [absent] = nodes as [string];
    const all = nodes.map((n) => period(n, 'active'));
    const base = validatorStatus.evaluate(new Map(), await observeValidators(spec, ctx(fakeData(all).data, new Map())), now, spec);
    // The lists leave it out (a default filter, an index behind); its own lookup still says active.
    const { data, calls } = fakeData(all.slice(1), { [absent]: [period(absent, 'active')] });
    const seen = await observeValidators(spec, ctx(data, base.states));
    expect(calls.filter((c) => c.startsWith('own'))).toEqual([`own ${absent}`]);
    const next = validatorStatus.evaluate(base.states, seen, now, spec);
    expect(next.alerts).toEqual([]);
    expect(next.states.get(absent)).toEqual(base.states.get(absent));
  });

  it('active → completed is confirmed by the node alone, reported once, and then costs nothing more', async () => {
    const [ending] = nodes as [string];
    const all = nodes.map((n) => period(n, 'active'));
    const base = validatorStatus.evaluate(new Map(), await observeValidators(spec, ctx(fakeData(all).data, new Map())), now, spec);
    const own = { [ending]: [period(ending, 'completed')] };
    let states = base.states;
    const reported: string[] = [];
    const ownCalls: number[] = [];
    for (let cycle = 0; cycle < 3; cycle++) {
      const { data, calls } = fakeData(all.slice(1), own);
      const next = validatorStatus.evaluate(states, await observeValidators(spec, ctx(data, states)), now, spec);
      reported.push(...next.alerts.map((a) => a.summary));
      ownCalls.push(calls.filter((c) => c.startsWith('own')).length);
      states = next.states;
    }
    expect(reported).toEqual([`${ending} validation active → completed`]);
    expect(ownCalls).toEqual([1, 0, 0]);
    // Its next validation starts active (ACP-41) and shows up in the list: seen without asking it alone.
    const { data, calls } = fakeData([...all.slice(1), period(ending, 'active', 'tx-next')]);
    const back = validatorStatus.evaluate(states, await observeValidators(spec, ctx(data, states)), now, spec);
    expect(back.alerts.map((a) => a.summary)).toEqual([`${ending} validation completed → active (new validation period)`]);
    expect(calls.some((c) => c.startsWith('own'))).toBe(false);
  });

  it('a node never seen and listed nowhere is asked alone at the baseline: not known is said once', async () => {
    const [unknown] = nodes as [string];
    const all = nodes.slice(1).map((n) => period(n, 'active'));
    const { data } = fakeData(all, { [unknown]: 'not-found' });
    const base = validatorStatus.evaluate(new Map(), await observeValidators(spec, ctx(data, new Map())), now, spec);
    expect(base.alerts.map((a) => a.summary)).toEqual([`${unknown} is not known to the service on mainnet: check the NodeID and network`]);
    const again = fakeData(all);
    const next = validatorStatus.evaluate(base.states, await observeValidators(spec, ctx(again.data, base.states)), now, spec);
    expect(next.alerts).toEqual([]);
    expect(again.calls.some((c) => c.startsWith('own'))).toBe(false);
  });

  it('a time that cannot be one (1e13, 1e308, negative, years ahead) keeps what the same period said last: nothing changes, nothing fails', async () => {
    const [odd, other] = nodes as [string, string];
    const all = nodes.map((n) => period(n, 'active'));
    const base = validationEnd.evaluate(new Map(), { service: await observeValidators(endSpec, ctx(fakeData(all).data, new Map())) }, now, endSpec);
    for (const endTimestamp of [1e13, 1e10, 1e308, -5]) {
      const listed = all.map((v) => (v.nodeId === odd ? { ...v, endTimestamp } : v));
      const next = validationEnd.evaluate(base.states, { service: await observeValidators(endSpec, ctx(fakeData(listed).data, base.states)) }, now, endSpec);
      expect(next.failed).toEqual({});
      expect(next.states.get(odd)).toEqual(base.states.get(odd));
      expect(next.states.get(other)).toEqual(base.states.get(other));
      expect(next.conditions).toEqual(base.conditions);
    }
    // Never seen before: taken as listed (the contract allows it; there is nothing else to go by).
    const first = await observeValidators(endSpec, ctx(fakeData(all.map((v) => (v.nodeId === odd ? { ...v, endTimestamp: -5 } : v))).data, new Map()));
    expect((first[nodes.indexOf(odd)] as Validator[])[0]?.endTimestamp).toBe(-5);
  });

  it('a failed page fails only the nodes of its batch; the others are evaluated and alerted on', async () => {
    const all = nodes.map((n) => period(n, 'active'));
    const endSpec = validationEndSpec.parse({ network: 'mainnet', nodeIds: nodes, warnBefore: ['1000d'] });
    const base = validationEnd.evaluate(new Map(), { service: await observeValidators(endSpec, ctx(fakeData(all).data, new Map())) }, now, endSpec);
    const secondBatch = (ids: readonly string[]) => ids.includes(nodes[120] as string);
    const { data } = fakeData(all, {}, secondBatch);
    const next = validationEnd.evaluate(base.states, { service: await observeValidators(endSpec, ctx(data, base.states)) }, now, endSpec);
    const sorted = [...nodes].sort();
    expect(Object.keys(next.failed ?? {}).sort()).toEqual(sorted.slice(100));
    expect(next.conditions?.map((c) => c.key).sort()).toEqual(sorted);
    expect(next.states).toEqual(base.states);
  });

  it('an item that breaks the contract fails its node only; one that names no node blinds nobody and is never read as a change', async () => {
    const [broken, ending, gone] = nodes as [string, string, string];
    const all = nodes.map((n) => period(n, 'active'));
    const base = validatorStatus.evaluate(new Map(), await observeValidators(spec, ctx(fakeData(all).data, new Map())), now, spec);
    const items: BrokenItem[] = [
      { nodeId: broken, reason: `unexpected item validators[3] of ${broken}: startTimestamp: expected number` },
      { nodeId: undefined, reason: 'unexpected item validators[7]: nodeId: expected string' },
    ];
    // `ending` is listed no more (its item may be the unnamed one): its own lookup says what it is.
    // `gone` is listed no more either and its own lookup still says active: no change.
    const listed = all.filter((v) => v.nodeId !== broken && v.nodeId !== ending && v.nodeId !== gone);
    const { data, calls } = fakeData(listed, { [ending]: [period(ending, 'completed')], [gone]: [period(gone, 'active')] }, () => false, items);
    const next = validatorStatus.evaluate(base.states, await observeValidators(spec, ctx(data, base.states)), now, spec);
    expect(next.failed).toEqual({ [broken]: items[0]?.reason });
    expect(next.alerts.map((a) => a.summary)).toEqual([`${ending} validation active → completed`]);
    expect(next.states.get(broken)).toEqual(base.states.get(broken));
    expect(next.states.get(gone)).toEqual(base.states.get(gone));
    expect(calls.filter((c) => c.startsWith('own')).sort()).toEqual([`own ${ending}`, `own ${gone}`].sort());
  });

  it('every batch failing fails the evaluation', async () => {
    const { data } = fakeData([], {}, () => true);
    await expect(observeValidators(spec, ctx(data, new Map()))).rejects.toThrow('HTTP 503');
  });

  it('for a kind that keeps only the period, a node listed with the very one it had is unchanged; a new one, or one listed again after a gap, is read', async () => {
    const [moved, back] = nodes as [string, string];
    const all = nodes.map((n) => period(n, 'active'));
    const base = validatorStatus.evaluate(new Map(), await observeValidators(spec, ctx(fakeData(all).data, new Map())), now, spec);
    const previous = new Map(base.states);
    previous.set(back, { period: base.states.get(back)?.period ?? null, missing: true });
    const listed = all.map((v) => (v.nodeId === moved ? period(moved, 'active', 'tx-next') : v));
    const seen = await observeValidators(spec, ctx(fakeData(listed, { [moved]: [period(moved, 'completed'), period(moved, 'active', 'tx-next')] }).data, previous), { sameIsUnchanged: true });
    expect(seen.filter((x) => x === 'unchanged')).toHaveLength(nodes.length - 2);
    expect(seen[nodes.indexOf(moved)]).toHaveLength(2);
    expect(seen[nodes.indexOf(back)]).toEqual([period(back, 'active')]);
    // Read as a whole, the same as without the option.
    expect(validatorStatus.evaluate(previous, seen, now, spec).alerts.map((a) => a.summary)).toEqual([`${moved} validation active → active (new validation period)`]);
  });

  it('reads each node\'s last state off previous in order, and looks up the ones it holds elsewhere or not at all', () => {
    const previous = new Map([
      ['a', 1],
      ['b', 2],
      ['z', 26],
      ['c', 3],
    ]);
    const lastOf = inOrder(previous);
    expect(['a', 'new', 'b', 'c', 'z'].map(lastOf)).toEqual([1, undefined, 2, 3, 26]);
  });

  it('rules watching the same nodes ask the very same calls, in any order', () => {
    const shuffled = statusSpec.parse({ network: 'mainnet', nodeIds: [...nodes].reverse() });
    const ending = validationEndSpec.parse({ network: 'mainnet', nodeIds: nodes });
    expect(validatorLookups(shuffled).calls).toEqual(validatorLookups(spec).calls);
    expect(validatorLookups(ending).calls).toEqual(validatorLookups(spec).calls);
    expect(validatorLookups(spec).calls[0]?.key).toContain(`subnetId=${PRIMARY_NETWORK}`);
  });
});
