import { describe, expect, it } from 'vitest';
import { icmMessage } from '../../api/schemas.js';
import { icmItem } from '../../sim/samples.js';
import { advance } from '../../alerts/lifecycle.js';
import { icmPending } from './index.js';
import { spec as specSchema } from './schema.js';

const A = '0xabc0000000000000000000000000000000000001';
const s = specSchema.parse({ network: 'mainnet', addresses: ['0xAbC0000000000000000000000000000000000001'], olderThan: '15m' });
const T = 1_800_000_000;
const msg = (id: string, status: string, sent = T - 3600) =>
  icmMessage.parse(icmItem({ messageId: id, from: A, to: A, sourceBlockchainId: 's', destinationBlockchainId: 'd', sourceEvmChainId: '43114', destinationEvmChainId: '1', sourceTimestamp: sent }, status));
const run = (prev: Parameters<typeof icmPending.evaluate>[0], messages: ReturnType<typeof msg>[], complete = true) =>
  icmPending.evaluate(prev, { byAddress: { [A]: { messages, complete } } }, new Date(T * 1000), s);

describe('icm-pending', () => {
  it('keeps tracking a pending message that fell past the pages read', () => {
    const a = run(new Map(), [msg('0x1', 'pending')]);
    expect(a.conditions?.map((c) => c.key)).toEqual(['0x1']);
    expect(run(a.states, [], false).conditions?.map((c) => c.key)).toEqual(['0x1']);
    expect(run(a.states, [], true).conditions).toEqual([]);
  });

  it('drops an unseen tracked message once it is older than maxAge, and its alert says so', () => {
    const old = run(new Map(), [msg('0x9', 'pending', T - 8 * 86_400)]);
    expect(old.conditions?.map((c) => c.key)).toEqual(['0x9']);
    const last = run(old.states, [], false);
    expect(last.conditions?.map((c) => c.resolvedSummary)).toEqual([
      `ICM message 0x9 from ${A} is no longer tracked: still "pending" after maxAge 7d, and past the pages read`,
    ]);
    expect(run(last.states, [], false).conditions).toEqual([]);
  });

  it('a status other than delivered (failed, or one the service adds later) fires at once, named; it never resolves as delivered', () => {
    const a = run(new Map(), [msg('0x1', 'pending', T - 60)]);
    expect(a.conditions).toEqual([]);
    const failed = run(a.states, [msg('0x1', 'failed', T - 60)]);
    expect(failed.conditions?.map((c) => [c.summary, c.tier, c.labels['status']])).toEqual([
      [`ICM message 0x1 from ${A} to chain 1 is "failed" (a status other than delivered; sent 2027-01-15T07:59:00Z)`, 'failed', 'failed'],
    ]);
    // An unknown status may come without its source transaction: the tracked one is kept.
    const bare = icmMessage.parse({ ...msg('0x1', 'pending'), status: 'reverted', sourceTransaction: undefined });
    expect(run(failed.states, [bare]).conditions?.map((c) => c.tier)).toEqual(['reverted']);
  });

  it('only a delivery resolves it, saying delivered', () => {
    const a = run(new Map(), [msg('0x1', 'pending')]);
    expect(a.conditions?.map((c) => c.resolvedSummary)).toEqual([`ICM message 0x1 from ${A} was delivered (or is no longer listed)`]);
    expect(run(a.states, [msg('0x1', 'delivered')]).conditions).toEqual([]);
  });

  it('a delivered message resolves saying so, with the status now (never "pending")', () => {
    const a = run(new Map(), [msg('0x1', 'pending')]);
    const fired = advance([], a.conditions ?? [], T * 1000);
    const b = run(a.states, [msg('0x1', 'delivered')]);
    const [resolved] = advance(fired.active, b.conditions ?? [], T * 1000 + 60_000, undefined, b.resolvedAs).notifications;
    expect(resolved?.summary).toBe(`ICM message 0x1 from ${A} was delivered (status delivered)`);
    expect(resolved?.details).toMatchObject({ Status: 'delivered', 'When it fired: Status': 'pending' });
    expect(resolved?.severity).toBeUndefined(); // the rule's, as it fired
  });

  it('stops firing when the message is delivered, including delivered_source_not_indexed', () => {
    const a = run(new Map(), [msg('0x1', 'pending')]);
    expect(run(a.states, [msg('0x1', 'delivered_source_not_indexed')]).conditions).toEqual([]);
  });

  it('gauges the pending count and the oldest age', () => {
    const a = run(new Map(), [msg('0x1', 'pending', T - 100), msg('0x2', 'pending', T - 900), msg('0x3', 'delivered')]);
    expect(icmPending.samples(s, a.states, new Date(T * 1000))).toEqual([
      { metric: 'avawatch_icm_pending_messages', labels: { network: 'mainnet', address: A }, value: 2 },
      { metric: 'avawatch_icm_oldest_pending_age_seconds', labels: { network: 'mainnet', address: A }, value: 900 },
    ]);
  });

  it('a message listed twice in one read counts once, as first (newest) seen: an identical read says the same', () => {
    const twice = [msg('0x1', 'pending', T - 3600), icmMessage.parse({ ...msg('0x1', 'pending'), status: 'odd', sourceTransaction: undefined })];
    const a = run(new Map(), twice);
    expect(run(a.states, twice).conditions).toEqual(a.conditions);
    expect(a.conditions?.map((c) => c.tier)).toEqual([undefined]);
  });
});
