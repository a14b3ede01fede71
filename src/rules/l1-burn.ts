import { z } from 'zod';
import type { L1Validator } from '../api/schemas.js';

// An L1 validator's burn, measured from its balance readings on the steady clock, and the
// runway it gives: the balance rule's runway alerts and the L1 liveness forecast read the same.

export const burnState = z.object({
  nodeId: z.string(),
  subnetId: z.string(),
  /** nAVAX, exact. */
  balance: z.string().regex(/^\d+$/),
  /** When the balance was read (unix s). */
  at: z.number(),
  /** The read the burn is measured from (absent in states written before it was kept apart). */
  since: z.object({ balance: z.string().regex(/^\d+$/), at: z.number(), steady: z.number().optional() }).optional(),
  /** nAVAX per second burned, measured over `burnOver` seconds. */
  burnPerSecond: z.number().nullable(),
  burnOver: z.number().optional(),
  inactive: z.boolean(),
});
export type BurnState = z.output<typeof burnState>;
type State = BurnState;

/** The span a burn is measured over: the balance moves in whole seconds of fee, so reads seconds apart could be off by half. */
const MEASURE_S = 600;

/**
 * The burn is measured from a baseline read: an unchanged balance (the service updates less
 * often than we poll) keeps it, so the rate is not inflated; a measure replaces the rate when
 * it spans no less than the one before, or MEASURE_S, and then starts the next baseline. A
 * top-up (a rise) starts a new baseline and keeps the rate known before. Spans are on the
 * steady clock (`steady`), so a step of the wall clock neither dilutes nor inflates a rate;
 * a baseline kept before it was stored (or after a restart whose wall stepped) falls back on
 * the wall (`at`), and a span that is not positive starts a new baseline.
 */
export function nextState(before: State | undefined, v: L1Validator, nowS: number, steadyS: number): State {
  const balance = BigInt(v.remainingBalance);
  const read = { nodeId: v.nodeId, subnetId: v.subnetId, inactive: false, balance: balance.toString(), at: nowS };
  const here = { balance: read.balance, at: nowS, steady: steadyS };
  if (!before || before.inactive) return { ...read, since: here, burnPerSecond: before?.burnPerSecond ?? null };
  // States written before the baseline was kept apart measured from the last read.
  const from = before.since ?? { balance: before.balance, at: before.at };
  const spent = BigInt(from.balance) - balance;
  const span = 'steady' in from && from.steady !== undefined ? steadyS - from.steady : nowS - from.at;
  const kept = { burnPerSecond: before.burnPerSecond, ...(before.burnOver === undefined ? {} : { burnOver: before.burnOver }) };
  if (balance > BigInt(before.balance) || span <= 0) return { ...read, since: here, ...kept };
  if (spent === 0n) return { ...read, since: from, ...kept };
  if (before.burnPerSecond !== null && span < Math.min(MEASURE_S, before.burnOver ?? 0)) return { ...read, since: from, ...kept };
  return { ...read, since: span >= MEASURE_S ? here : from, burnPerSecond: Number(spent) / span, burnOver: span };
}

export function runwaySeconds(st: State): number | undefined {
  if (st.inactive || !st.burnPerSecond || st.burnPerSecond <= 0) return undefined;
  return Math.floor(Number(st.balance) / st.burnPerSecond);
}
