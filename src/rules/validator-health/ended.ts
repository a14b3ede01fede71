import { avaxText } from '../../base/amount.js';
import { CHECKS, fmt, keyOf } from './checks.js';
import { benchedChains } from './read.js';
import type { Spec, State } from './schema.js';
import type { Period } from '../validators.js';
import { rewardThreshold } from './uptime.js';
import { parseVersion, versionText } from '../semver.js';

// A check stops holding when the node's validation ends as well as when the node recovers.
// Its condition's resolved text ("back above 86%") tells only the second: when the validation
// was active and is no longer the node's active period, every check of the node resolves
// saying so, with the last figure read.

/** Resolved texts by condition key when the node's validation ended at this read, else undefined. */
export function endedTexts(node: string, before: State | undefined, st: State, s: Spec): Record<string, string> | undefined {
  const was = before?.period;
  if (!before || !was || was.status !== 'active') return undefined;
  const why = endedWhy(before, was, st);
  if (why === undefined) return undefined;
  const last: Record<(typeof CHECKS)[number], string | undefined> = {
    uptime: before.uptime === undefined ? undefined : `uptime last ${fmt(before.uptime)}%${underReward(before.uptime, was.startTimestamp, s)}`,
    benched: before.benched === undefined ? undefined : `benched last on the ${benchedChains(before, s.benched?.above ?? 0).join('/') || 'no'}-chain`,
    reachability: before.reachability === undefined ? undefined : `reachability last ${fmt(before.reachability)}%`,
    version: versionLast(before.version),
    'delegation-capacity': before.capacity === undefined ? undefined : `delegation capacity last ${avaxText(before.capacity)}`,
  };
  return Object.fromEntries(CHECKS.map((check) => [keyOf(node, check), `${node}: ${why}${last[check] ? `; ${last[check]}` : ''}`]));
}

function endedWhy(before: State, was: Period, st: State): string | undefined {
  if (st.missing === true && before.missing !== true) return 'validation is no longer listed by the service';
  // A node listed no more keeps the period it had: never null once it had one.
  const now = st.period ?? was;
  if (now.txHash !== was.txHash) return `validation ${was.txHash} ended (its current period is ${now.txHash} now)`;
  if (now.status === 'active') return undefined;
  return now.status === 'completed' || now.status === 'removed' ? `validation ended (${now.status})` : `validation is no longer active (${now.status})`;
}

function underReward(uptime: number, startS: number, s: Spec): string {
  const reward = rewardThreshold(startS, s);
  return uptime < reward.percent ? `, under the ${reward.percent}% it needed for its reward` : '';
}

function versionLast(text: string | undefined): string | undefined {
  const v = parseVersion(text);
  return v ? `AvalancheGo ${versionText(v)} last` : undefined;
}
