import { describe, expect, it } from 'vitest';
import { delegator, type Delegator } from '../../api/schemas.js';
import { delegatorItem } from '../../sim/samples.js';
import { advance } from '../../alerts/lifecycle.js';
import { severityOf } from '../../alerts/pipeline/enrich.js';
import { delegationEnd, type Observation } from './index.js';
import { spec as specSchema } from './schema.js';

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const d = (tx: string, status = 'active') =>
  delegator.parse(delegatorItem({ txHash: tx, nodeId: NODE, rewardAddresses: ['avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw'], amountDelegated: '25000000000', startTimestamp: 1_700_000_000, endTimestamp: 1_800_000_000 }, status));
const now = new Date(1_750_000_000_000);
const ADDRESS = 'avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw';
/** What observe() saw: the node and the address were read (whole or up to what was known). */
const obs = (active: Delegator[], completed: Record<string, Delegator> = {}, failed: Record<string, string> = {}): Observation => ({ active, completed, failed, read: [NODE, ADDRESS].filter((e) => !failed[e]) });
const after = new Date(1_800_000_060_000); // past the delegations' end

describe('delegation-end', () => {
  it('accepts P- prefixed reward addresses and compares them bare', () => {
    expect(specSchema.parse({ network: 'mainnet', rewardAddresses: ['P-avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw'] }).rewardAddresses).toEqual(['avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw']);
  });

  it('reports an ended delegation only once the service lists it completed, with its reward', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    const first = delegationEnd.evaluate(new Map(), obs([d('t1')]), now, s);
    expect(first.alerts).toEqual([]);
    // Past its end but not listed completed yet (the reward transaction comes later): it waits.
    const waiting = delegationEnd.evaluate(first.states, obs([]), after, s);
    expect(waiting.alerts).toEqual([]);
    expect(waiting.states.get('t1')).toEqual(first.states.get('t1'));
    const done = delegationEnd.evaluate(waiting.states, obs([], { t1: d('t1', 'completed') }), after, s);
    expect(done.alerts.map((a) => a.summary)).toEqual([expect.stringMatching(new RegExp(`^Delegation of 25 AVAX to ${NODE} ended, reward [\\d.]+ AVAX gross, [\\d.]+ AVAX net$`))]);
    expect(done.states.get('t1')).toBeUndefined();
  });

  it('an ended delegation paid nothing is a critical "ended without a reward"', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    const first = delegationEnd.evaluate(new Map(), obs([d('t1')]), now, s);
    const unpaid = { ...d('t1', 'completed'), grossReward: '0', netReward: '0' };
    const [alert] = delegationEnd.evaluate(first.states, obs([], { t1: unpaid }), after, s).alerts;
    expect(alert).toMatchObject({ severity: 'critical', summary: `Delegation of 25 AVAX to ${NODE} ended without a reward: the node's uptime was likely under the reward threshold`, labels: { reward: 'none' } });
  });

  it('severity: a new delegation is good news and one ending neutral (info), one ended without a reward critical', () => {
    const rule = { severity: 'critical' as const };
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], notifyNew: true, warnBefore: ['40d'] });
    const first = delegationEnd.evaluate(new Map(), obs([d('t1')]), now, s);
    const next = delegationEnd.evaluate(first.states, obs([d('t1'), d('t2')]), new Date((1_800_000_000 - 86_400) * 1000), s);
    expect(next.alerts.map((a) => [a.summary, severityOf(rule, a)])).toEqual([[`New delegation of 25 AVAX to ${NODE}, until 2027-01-15T08:00:00Z`, 'info']]);
    expect(next.conditions?.map((c) => severityOf(rule, c))).toEqual(['info', 'info']);
    const paid = delegationEnd.evaluate(next.states, obs([], { t1: d('t1', 'completed'), t2: { ...d('t2', 'completed'), grossReward: '0', netReward: '0' } }), after, s);
    expect(paid.alerts.map((a) => severityOf(rule, a))).toEqual(['info', 'critical']);
  });

  it('an ending delegation resolves saying it reached its end (or ended, with its reward), never "ends in 1d"', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], warnBefore: ['3d'] });
    const soon = new Date((1_800_000_000 - 86_400) * 1000);
    const first = delegationEnd.evaluate(new Map(), obs([d('t1')]), soon, s);
    const fired = advance([], first.conditions ?? [], soon.getTime());
    const past = delegationEnd.evaluate(first.states, obs([]), after, s);
    const [resolved] = advance(fired.active, past.conditions ?? [], after.getTime(), undefined, past.resolvedAs).notifications;
    expect(resolved?.summary).toBe(`Delegation of 25 AVAX to ${NODE} reached its end (2027-01-15T08:00:00Z); its reward is reported once the service lists it completed`);
  });

  it('one that leaves the active list (a status the service added, e.g. "paused", or a page not read) is never announced as ended', () => {
    for (const spec of [{ nodeIds: [NODE] }, { rewardAddresses: [ADDRESS] }]) {
      const s = specSchema.parse({ network: 'mainnet', ...spec });
      const first = delegationEnd.evaluate(new Map(), obs([d('t1')]), now, s);
      for (const at of [now, after]) {
        const left = delegationEnd.evaluate(first.states, obs([]), at, s);
        expect(left.alerts).toEqual([]);
        expect(left.states.get('t1')).toEqual(first.states.get('t1'));
      }
    }
  });

  it('announces new delegations only of nodes read before: a node added to the rule starts with its baseline', () => {
    const OTHER = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], notifyNew: true });
    const first = delegationEnd.evaluate(new Map(), obs([d('t1')]), now, s);
    expect(first.states.get('_baseline')).toEqual({ baseline: true, entities: [NODE] });
    const wider = specSchema.parse({ network: 'mainnet', nodeIds: [NODE, OTHER], notifyNew: true });
    const existing = { ...d('t9'), nodeId: OTHER };
    const next = delegationEnd.evaluate(first.states, { active: [d('t1'), d('t2'), existing], completed: {}, failed: {}, read: [NODE, OTHER] }, now, wider);
    expect(next.alerts.map((a) => a.subject)).toEqual(['t2']);
    expect(next.states.get('_baseline')).toEqual({ baseline: true, entities: [OTHER, NODE].sort() });
  });

  it('one handed in as listed completed is reported ended with its reward, whatever its end time says (observe asks only once the end has passed)', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    const first = delegationEnd.evaluate(new Map(), obs([d('t1')]), now, s);
    const done = delegationEnd.evaluate(first.states, obs([], { t1: d('t1', 'completed') }), now, s);
    expect(done.alerts.map((a) => a.details['Gross reward'])).toEqual([expect.stringMatching(/AVAX$/)]);
  });

  it('says nothing of delegations whose node left the rule', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    const first = delegationEnd.evaluate(new Map(), obs([d('t1')]), now, s);
    const other = specSchema.parse({ network: 'mainnet', nodeIds: ['NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ'] });
    expect(delegationEnd.evaluate(first.states, obs([]), now, other).alerts).toEqual([]);
  });

  it('does not announce existing delegations on the first read, even with notifyNew', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], notifyNew: true });
    expect(delegationEnd.evaluate(new Map(), obs([d('t1'), d('t2')]), now, s).alerts).toEqual([]);
  });

  it('a list that failed is not read as "ended": its delegations keep what held, and it is named', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], warnBefore: ['3d'] });
    const soon = { ...d('t1'), endTimestamp: 1_750_000_000 + 86_400 };
    const first = delegationEnd.evaluate(new Map(), obs([soon]), now, s);
    expect(first.conditions?.map((c) => c.key)).toEqual(['t1']);
    const failing = delegationEnd.evaluate(first.states, obs([], {}, { [NODE]: 'data API: HTTP 503' }), now, s);
    expect(failing.alerts).toEqual([]);
    expect(failing.states.get('t1')).toEqual(first.states.get('t1'));
    expect(failing.conditions?.map((c) => c.key)).toEqual(['t1']);
    expect(failing.failed).toEqual({ [NODE]: 'data API: HTTP 503' });
  });

  it('an amount the service did not send as a number is shown as unknown, never a crash', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], notifyNew: true });
    const first = delegationEnd.evaluate(new Map(), obs([d('t1')]), now, s);
    const odd = { ...d('t2'), amountDelegated: '1.5e9' };
    const next = delegationEnd.evaluate(first.states, obs([d('t1'), odd]), now, s);
    expect(next.alerts.map((a) => a.summary)).toEqual([`New delegation of an unknown amount to ${NODE}, until 2027-01-15T08:00:00Z`]);
    expect(delegationEnd.samples(s, next.states, now).find((g) => g.metric === 'avawatch_delegated_stake_avax')?.value).toBe(25);
  });
});

describe('delegation-end reads what changed', () => {
  type Query = { nodeIds?: readonly string[]; delegationStatus?: string; enough?: (page: readonly Delegator[]) => boolean; pages?: number };
  /** A DataApi stand-in that pages newest first (100 a page) and honours `enough` and `pages`, counting pages read. */
  function fakeData(items: () => Delegator[]) {
    const pages: string[] = [];
    const data = {
      delegators: async (_: string, q: Query) => {
        const all = items()
          .filter((x) => x.delegationStatus === q.delegationStatus && (!q.nodeIds || q.nodeIds.includes(x.nodeId)))
          .sort((a, b) => b.startTimestamp - a.startTimestamp);
        const out: Delegator[] = [];
        for (let p = 0; p * 100 < all.length || p === 0; p++) {
          const page = all.slice(p * 100, p * 100 + 100);
          pages.push(q.delegationStatus as string);
          out.push(...page);
          if (q.enough?.(page) || (q.pages !== undefined && p + 1 >= q.pages)) break;
        }
        return out;
      },
    };
    return { data, pages };
  }
  const many = (n: number, from: number, status = 'active') =>
    Array.from({ length: n }, (_, i) => ({ ...d(`t${from + i}`, status), startTimestamp: 1_700_000_000 + from + i, endTimestamp: 1_800_000_000 + from + i }));
  const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], notifyNew: true });

  async function poll(items: Delegator[], previous: ReadonlyMap<string, unknown>, at = now) {
    const { data, pages } = fakeData(() => items);
    const observation = await delegationEnd.observe(s, { data: { primary: data }, previous, now: at, signal: new AbortController().signal } as never);
    return { result: delegationEnd.evaluate(previous as never, observation, at, s), pages };
  }

  it('a node with 250 delegations: every page at the baseline, then one page a poll; new ones are read until a page holds a known one', async () => {
    const old = many(250, 0);
    const base = await poll(old, new Map());
    expect(base.pages).toEqual(['active', 'active', 'active']);
    expect(base.result.states.size).toBe(251);
    const steady = await poll(old, base.result.states);
    expect(steady.pages).toEqual(['active']);
    expect(steady.result.alerts).toEqual([]);
    expect(steady.result.states).toEqual(base.result.states);
    // 150 new ones: a page of new ones, then a page that reaches known ones.
    const busy = await poll([...old, ...many(150, 1_000)], base.result.states);
    expect(busy.pages).toEqual(['active', 'active']);
    expect(busy.result.alerts).toHaveLength(150);
    expect(busy.result.states.size).toBe(401);
  });

  it('asks for completed ones only for delegations past their end, and reports each once it is listed completed', async () => {
    const old = many(5, 0);
    const base = await poll(old, new Map());
    const endedTx = 't0';
    const pastEnd = new Date((1_800_000_000 + 2) * 1000); // t0, t1, t2 have ended
    // Not listed completed yet: nothing reported, kept.
    const waiting = await poll(old.slice(3), base.result.states, pastEnd);
    expect(waiting.pages).toEqual(['active', 'completed']);
    expect(waiting.result.alerts).toEqual([]);
    expect(waiting.result.states.size).toBe(6);
    const done = [{ ...old[0]!, delegationStatus: 'completed', grossReward: '1000000000', netReward: '980000000' }];
    const listed = await poll([...old.slice(3), ...done], waiting.result.states, pastEnd);
    expect(listed.result.alerts.map((a) => a.subject)).toEqual([endedTx]);
    expect(listed.result.states.get(endedTx)).toBeUndefined();
    expect(listed.result.states.size).toBe(5);
  });

  it("an event (info) when a node can no longer accept a new delegation (its validation ends within 14 days), and when it can again; a failed read keeps what held", () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    const nowS = now.getTime() / 1000;
    const listed = (endDays: number, tx = 'v1') => new Map([[NODE, { txHash: tx, status: 'active', startTimestamp: nowS - 300 * 86_400, endTimestamp: nowS + endDays * 86_400 }]]);
    const open = delegationEnd.evaluate(new Map(), { ...obs([]), validations: listed(20) }, now, s);
    expect([...open.alerts, ...(open.conditions ?? [])]).toEqual([]);
    const closed = delegationEnd.evaluate(open.states, { ...obs([]), validations: listed(9) }, now, s);
    expect(closed.alerts.map((a) => [a.severity, a.labels['check'], a.labels['change'], a.summary])).toEqual([
      ['info', 'delegation-window', 'closed', `${NODE} can no longer accept new delegations: its validation ends 2025-06-24T15:06:40Z, before the 14d a delegation must last`],
    ]);
    // Said once: the next read, and one that failed, say nothing.
    expect(delegationEnd.evaluate(closed.states, { ...obs([]), validations: listed(9) }, now, s).alerts).toEqual([]);
    const gap = delegationEnd.evaluate(closed.states, { ...obs([]), validations: new Map([[NODE, { failed: 'HTTP 503' }]]) }, now, s);
    expect(gap.alerts).toEqual([]);
    // A new validation (or the next cycle) opens it again, saying until when.
    const renewed = delegationEnd.evaluate(gap.states, { ...obs([]), validations: listed(200, 'v2') }, now, s);
    expect(renewed.alerts.map((a) => a.summary)).toEqual([`${NODE} can accept delegations again: its validation (or cycle) now ends 2026-01-01T15:06:40Z`]);
    // delegationWindow: false says nothing.

    const off = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], delegationWindow: false });
    expect(delegationEnd.evaluate(open.states, { ...obs([]), validations: listed(9) }, now, off).alerts).toEqual([]);
  });
});
