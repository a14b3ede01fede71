import type { Requirement } from '../network.js';
import type { Spec, State, View } from './schema.js';
import { rewardThreshold } from './uptime.js';

// The downtime budget: how much longer a node can be down and still be paid for the period
// that is judged (its validation, or an auto-renewed validator's current cycle). A reward
// needs uptime ≥ requirement over the whole period, and uptime is time up over time elapsed
// (AvalancheGo's CalculateUptimePercentFrom), so with u the uptime so far:
//
//   budget = u × elapsed + remaining − requirement × length
//
// Up time so far, plus every second still to come, less what the reward needs. While the node
// is up the budget stays where it is (a second up is a second fewer remaining); each second
// down spends one. Negative: the reward cannot be reached any more.

export interface Judged {
  start: number;
  end: number;
  requirement: Requirement;
  /** An auto-renewed validator's cycle (ACP-236), not a whole validation. */
  cycle: boolean;
}

export interface Figures {
  /** Seconds: may be negative. */
  budget: number;
  elapsed: number;
  remaining: number;
  length: number;
  /** The most uptime the period can still end with, percent (the node up from now on). */
  reachable: number;
}

/** The budget of a period, or undefined when its times or the uptime are no reading. */
export function downtimeBudget(uptimePercent: number, start: number, end: number, nowS: number, requirementPercent: number): Figures | undefined {
  const length = end - start;
  if (!(length > 0) || !Number.isFinite(length) || !(uptimePercent >= 0 && uptimePercent <= 100)) return undefined;
  const elapsed = Math.min(Math.max(nowS - start, 0), length);
  const remaining = length - elapsed;
  const up = (uptimePercent / 100) * elapsed;
  return { budget: up + remaining - (requirementPercent / 100) * length, elapsed, remaining, length, reachable: (100 * (up + remaining)) / length };
}

/** The judged period: the current cycle when the P-Chain says this very validation renews, else the service's period. */
export function judgedOf(st: State, s: Spec): Judged | undefined {
  const p = st.period;
  if (!p || p.status !== 'active') return undefined;
  const r = st.renew;
  if (r && r.txId === p.txHash) return { start: r.start, end: r.end, requirement: rewardThreshold(r.start, s), cycle: true };
  return { start: p.startTimestamp, end: p.endTimestamp, requirement: rewardThreshold(p.startTimestamp, s), cycle: false };
}

/**
 * Each view's uptime over the judged period. The service's figure covers its own listing of
 * the period: it counts for a cycle only when the service lists the cycle's start.
 */
export function viewsOf(st: State, j: Judged): Partial<Record<View, number>> {
  const out: Partial<Record<View, number>> = {};
  if (st.uptime !== undefined && st.period?.startTimestamp === j.start) out.service = st.uptime;
  if (st.own !== undefined) out.node = st.own.uptime;
  if (st.pchainUptime !== undefined) out['p-chain'] = st.pchainUptime;
  return out;
}

/** What a view's budget warns under: `warnBelow`, or `warnShare` of the whole allowance, whichever is less. */
export function warnAt(s: Spec, length: number, requirementPercent: number): number | undefined {
  if (s.budget === false) return undefined;
  const allowance = ((100 - requirementPercent) / 100) * length;
  return Math.min(s.budget.warnBelow / 1000, (s.budget.warnShare / 100) * allowance);
}

/** A budget's warning is left only this far above where it entered (the budget moves with the service's rounding). */
export const WARN_HYSTERESIS = 1.1;

export const VIEW_TEXT: Record<View, string> = {
  service: "the service's own node's view",
  node: "its peers' view (the node's own info.uptime)",
  'p-chain': "the P-Chain API's node's view",
};

