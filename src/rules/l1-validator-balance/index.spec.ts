import { describe, expect, it } from 'vitest';
import { l1Validator } from '../../api/schemas.js';
import { l1ValidatorItem } from '../../sim/samples.js';
import { advance } from '../../alerts/lifecycle.js';
import { l1ValidatorBalance } from './index.js';
import { spec as specSchema, type State } from './schema.js';

const spec = specSchema.parse({ network: 'mainnet', subnetId: 's1', minBalance: '1', minRunway: '1d' });
const input = { validationId: 'v1', nodeId: 'NodeID-P7oB2McjBGgW2NXXWVYjV8JEDFoW9xDE5', subnetId: 's1', weight: 100, creationTimestamp: 0 };
const item = (balance: number) => l1Validator.parse(l1ValidatorItem(input, balance));
const T0 = 1_800_000_000;
const run = (prev: ReadonlyMap<string, State>, balance: number | undefined, t: number, gone: Record<string, ReturnType<typeof item> | 'unlisted'> = {}) =>
  l1ValidatorBalance.evaluate(prev, { active: balance === undefined ? [] : [item(balance)], gone, failed: {} }, new Date(t * 1000), spec);

describe('l1-validator-balance', () => {
  it('measures the burn between reads and keeps it across a top-up', () => {
    const a = run(new Map(), 5_000_000_000, T0);
    expect(a.states.get('v1')?.burnPerSecond).toBeNull();
    const b = run(a.states, 4_913_600_000, T0 + 86_400); // 0.0864 AVAX in a day = 1000 nAVAX/s
    expect(b.states.get('v1')?.burnPerSecond).toBe(1000);
    const c = run(b.states, 9_000_000_000, T0 + 90_000); // topped up
    expect(c.states.get('v1')?.burnPerSecond).toBe(1000);
  });

  it("measures the burn on the steady clock: a step of the wall clock between two reads neither dilutes nor inflates it", () => {
    // Wall and steady clocks read t; at the second read the wall has stepped `step` seconds.
    const at = (prev: ReadonlyMap<string, State>, balance: number, t: number, step: number) =>
      l1ValidatorBalance.evaluate(prev, { active: [item(balance)], gone: {}, failed: {}, steadyS: t }, new Date((t + step) * 1000), spec);
    const a = at(new Map(), 5_000_000_000, T0, 0);
    for (const step of [26 * 3600, -3600]) {
      const b = at(a.states, 4_999_400_000, T0 + 600, step); // 600 000 nAVAX over 600 s of steady time
      expect(b.states.get('v1')?.burnPerSecond, `wall stepped ${step}s`).toBe(1000);
    }
  });

  it('measures the burn from the last change: an unchanged read does not inflate it', () => {
    const a = run(new Map(), 5_000_000_000, T0);
    const b = run(a.states, 5_000_000_000, T0 + 60); // the service has not updated yet
    const c = run(b.states, 4_999_880_000, T0 + 120); // 120 000 nAVAX over 120 s
    expect(c.states.get('v1')?.burnPerSecond).toBe(1000);
  });

  it('measures the burn over ten minutes: reads a second apart, of a balance that moves in whole seconds, do not halve or double it', () => {
    // 1000 nAVAX/s, charged per whole second; each answer is 30 ms older than the evaluation that reads it.
    const read = (st: ReadonlyMap<string, State>, t: number) => run(st, 5_000_000_000 - 1000 * Math.floor(t - 0.03 - T0), t).states;
    let st = read(new Map(), T0 + 0.99);
    const burns: number[] = [];
    for (let t = T0 + 2.01; t < T0 + 1200; t += 1.02) {
      st = read(st, t);
      burns.push(st.get('v1')?.burnPerSecond ?? 0);
    }
    // The first, over two seconds that saw one charged, is half; from ten minutes on, off by two seconds' charge over ten minutes at most.
    expect(burns[0]).toBe(500);
    const steady = burns.slice(Math.ceil(600 / 1.02));
    expect(Math.max(...steady.map((b) => Math.abs(b - 1000)))).toBeLessThanOrEqual(2000 / 600);
  });

  it('keeps a firing condition when a validator is missing but not confirmed inactive', () => {
    const a = run(new Map(), 100_000_000, T0); // 0.1 AVAX < 1 AVAX: firing
    expect(a.conditions?.map((c) => c.key)).toEqual(['v1/balance']);
    expect(run(a.states, undefined, T0 + 60, { v1: 'unlisted' }).conditions?.map((c) => c.key)).toEqual(['v1/balance']);
  });

  it('says how much AVAX keeps it running for minRunway', () => {
    const a = run(new Map(), 100_000_000, T0);
    const b = run(a.states, 90_000_000, T0 + 10_000); // 1000 nAVAX/s, 90000 s left (1d is 86400 s: fine)
    expect(b.conditions?.filter((c) => c.labels['check'] === 'runway')).toEqual([]);
    const c = run(b.states, 80_000_000, T0 + 20_000); // 80000 s left < 1d
    const runway = c.conditions?.find((x) => x.labels['check'] === 'runway');
    expect(runway?.summary).toBe(
      'L1 validator v1 (NodeID-P7oB2McjBGgW2NXXWVYjV8JEDFoW9xDE5) runs out of balance around 2027-01-16T11:46:40Z, within 1d, at 0.0864 AVAX/day; top up 0.0064 AVAX to keep it running for 1d',
    );
  });

  it('reports inactivity only when the inactive list confirms it, once', () => {
    const a = run(new Map(), 2_000_000_000, T0);
    expect(run(a.states, undefined, T0 + 60, { v1: 'unlisted' }).alerts).toEqual([]);
    const gone = run(a.states, undefined, T0 + 60, { v1: item(0) });
    expect(gone.alerts.map((x) => x.summary)).toEqual(['L1 validator v1 (NodeID-P7oB2McjBGgW2NXXWVYjV8JEDFoW9xDE5) is inactive: it left the active set with 0 AVAX']);
    expect(gone.states.get('v1')?.inactive).toBe(true);
    expect(gone.conditions).toEqual([]);
  });

  it('a topped-up validator resolves with the balance read now; the low one only under "When it fired"', () => {
    const a = run(new Map(), 100_000_000, T0); // 0.1 AVAX < 1 AVAX
    const fired = advance([], a.conditions ?? [], T0 * 1000);
    const b = run(a.states, 5_000_000_000, T0 + 60);
    const [resolved] = advance(fired.active, b.conditions ?? [], (T0 + 60) * 1000, undefined, b.resolvedAs).notifications;
    expect(resolved?.summary).toBe('L1 validator v1 (NodeID-P7oB2McjBGgW2NXXWVYjV8JEDFoW9xDE5) is no longer below 1 AVAX: 5 AVAX now');
    expect(resolved?.details).toMatchObject({ 'Remaining balance': '5 AVAX', 'When it fired: Remaining balance': '0.1 AVAX' });
  });
});
