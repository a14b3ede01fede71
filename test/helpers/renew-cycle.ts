import { validator } from '../../src/api/schemas.js';
import { activeValidator, completedValidator } from '../../src/sim/samples.js';
import type { Staker, StakersRead } from '../../src/rules/pchain.js';
import { validatorHealth } from '../../src/rules/validator-health/index.js';
import type { Observation } from '../../src/rules/validator-health/observe.js';
import { spec as specSchema, type State } from '../../src/rules/validator-health/schema.js';

// validator-health's auto-renewed validator (ACP-236) for its specs (src/rules/validator-health/renew*.spec.ts):
// a 14-day cycle as the P-Chain API and the service list it, evaluated poll by poll.

export const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
export const DAY = 86_400;
export const START = Date.parse('2026-11-01T00:00:00Z') / 1000;
export const AVAX = 1_000_000_000n;
export const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], pChainApi: 'https://api.avax.network' });
export const AUTHORITY = { threshold: 1, addresses: ['P-avax1gss39m5sx6jn7wlyzeqzm086yfq2l02xkvmecy'] };

/** A 14-day auto-renewed validator in its first cycle, as the P-Chain API lists it. */
export function staker(over: Partial<Staker> = {}, renew: Partial<NonNullable<Staker['autoRenew']>> = {}): Staker {
  return {
    txId: 'tx1',
    nodeId: NODE,
    start: START,
    end: START + 14 * DAY,
    weight: String(2_000n * AVAX),
    potentialReward: String(40n * AVAX),
    delegateeReward: String(2n * AVAX),
    uptime: 99,
    autoRenew: { nextPeriod: 14 * DAY, compoundShares: 500_000, authority: AUTHORITY, ...renew },
    ...over,
  };
}
/** The service lists the validation with the cycle's start and end. */
export const listed = (uptime: number, p: Pick<Staker, 'start' | 'end'>) => validator.parse({ ...activeValidator({ nodeId: NODE, txHash: 'tx1', startTimestamp: p.start, endTimestamp: p.end }), uptimePerformance: uptime });
/** The service lists it ended, with the validation reward it paid (AVAX). */
export const ended = (reward: number, p: Pick<Staker, 'start' | 'end'>) =>
  validator.parse(completedValidator({ nodeId: NODE, txHash: 'tx1', startTimestamp: p.start, endTimestamp: p.end, rewards: { validationRewardAmount: String(BigInt(reward) * AVAX), delegationRewardAmount: '0' } }));
export const read = (...stakers: Staker[]): StakersRead => ({ source: 'api.avax.network', stakers: new Map(stakers.map((v) => [v.nodeId, v])) });
export const at = (days: number) => new Date((START + days * DAY) * 1000);

/** Evaluates each poll in turn; what each produced. */
export function polls(list: Array<{ day: number; o: Observation }>) {
  let states: ReadonlyMap<string, State> = new Map();
  return list.map(({ day, o }) => {
    const r = validatorHealth.evaluate(states, o, at(day), s);
    states = r.states;
    return r;
  });
}
