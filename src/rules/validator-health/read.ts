import type { Validator } from '../../api/schemas.js';
import { navax } from '../../base/amount.js';
import { percentOrNone, toPeriod } from '../validators.js';
import type { Spec, State } from './schema.js';
import { parseVersion } from '../semver.js';

// A node's figures from its current period. The service leaves optional fields out now and
// then, and a figure out of its range is no reading: either way the last value of the same
// validation stands, so no alert resolves (or fires again) on one odd poll.

export const CHAINS = ['P', 'X', 'C'] as const;

/** All the AVAX there will ever be (720 million), in nAVAX: an amount above it is no reading. */
const MAX_NAVAX = 720_000_000n * 1_000_000_000n;

/** nAVAX text of a whole amount no larger than the supply, else undefined. */
function amount(text: string | undefined): string | undefined {
  const n = text === undefined ? undefined : navax(text);
  return n !== undefined && n <= MAX_NAVAX ? text : undefined;
}

/** A version text holding a version, else undefined. */
function version(text: string | undefined): string | undefined {
  return parseVersion(text) ? text : undefined;
}

export function read(v: Validator, before: State | undefined, nowS: number, s: Spec): State {
  const st: State = { period: toPeriod(v), missing: false, at: nowS };
  if (v.validationStatus !== 'active') return st;
  // What this poll left out keeps the last value, within the same validation only.
  const kept = before?.period?.txHash === v.txHash ? before : undefined;
  const h = v.validatorHealth;
  st.uptime = percentOrNone(v.uptimePerformance) ?? kept?.uptime;
  const benched = {
    P: percentOrNone(h?.benchedPChainRequestsPercent) ?? kept?.benched?.P,
    X: percentOrNone(h?.benchedXChainRequestsPercent) ?? kept?.benched?.X,
    C: percentOrNone(h?.benchedCChainRequestsPercent) ?? kept?.benched?.C,
  };
  if (CHAINS.some((c) => benched[c] !== undefined)) st.benched = Object.fromEntries(CHAINS.flatMap((c) => (benched[c] === undefined ? [] : [[c, benched[c]]])));
  st.reachability = percentOrNone(h?.reachabilityPercent) ?? kept?.reachability;
  st.version = version(v.avalancheGoVersion) ?? kept?.version;
  st.staked = amount(v.amountStaked) ?? kept?.staked;
  st.delegated = amount(v.amountDelegated) ?? kept?.delegated;
  st.capacity = amount(v.delegationCapacity) ?? kept?.capacity;
  st.potentialReward = amount(v.potentialRewards?.validationRewardAmount) ?? kept?.potentialReward;
  // A check holds from the first sample that shows it (kept across polls while it holds).
  if (s.benched && benchedChains(st, s.benched.above).length > 0) st.benchedSince = kept?.benchedSince ?? nowS;
  if (s.reachability && st.reachability !== undefined && st.reachability < s.reachability.below) st.unreachableSince = kept?.unreachableSince ?? nowS;
  return st;
}

export function benchedChains(st: State, above: number): Array<(typeof CHAINS)[number]> {
  return CHAINS.filter((c) => (st.benched?.[c] ?? 0) > above);
}
