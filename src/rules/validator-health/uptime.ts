import { uptimeRequirement, HELICON_UPTIME_REQUIREMENT, type Requirement, type UpgradeTimes } from '../network.js';
import type { Spec } from './schema.js';

// Uptime levels follow the requirement the judged period needs (80%, 90% for one that starts
// at or after Helicon: built in, src/rules/network.ts): under it the validation earns nothing,
// so under it is always critical. A warning band above it is optional (`uptime.warning`): the
// downtime budget (budget.ts) is the default warning. Each level is left only above it +
// hysteresis, so a node hovering at a level sends one message, not one a poll.

export type Tier = 'warning' | 'critical';

export interface Levels {
  /** The warning level; equal to `critical` when no band is set. */
  warning: number;
  critical: number;
  hysteresis: number;
  reward: Requirement;
  /** Why critical is where it is, when the requirement raised it over uptime.critical. */
  raised?: string;
}

/** The upgrade times this rule judges by: the built-in schedule, with the rule's overrides. */
export function upgradesOf(s: Spec): UpgradeTimes | undefined {
  const helicon = s.rewardUptime.heliconTime;
  return helicon === undefined ? s.upgrades : { ...s.upgrades, helicon };
}

/** The uptime a period that started at `startS` needs for its reward (80%, 90% from Helicon on); the rule may override the percents. */
export function rewardThreshold(startS: number, s: Spec): Requirement {
  const built = uptimeRequirement(s.network, startS, upgradesOf(s));
  const r = s.rewardUptime;
  const override = built.percent === HELICON_UPTIME_REQUIREMENT ? r.heliconThreshold : r.threshold;
  if (override === undefined || override === built.percent) return built;
  return { percent: override, why: `${built.why}; set to ${override}% by rewardUptime.${built.percent === HELICON_UPTIME_REQUIREMENT ? 'heliconThreshold' : 'threshold'}` };
}

/**
 * The levels for a period that started at `startS`: critical under its requirement, or under
 * `uptime.critical` if that is higher; a warning under `uptime.warning` when set. Under the
 * requirement is never less than critical (levels written for 80% still page for a Helicon
 * validation at 86%).
 */
export function levelsFor(startS: number, s: Spec): Levels | undefined {
  if (s.uptime === false) return undefined;
  const u = s.uptime;
  const reward = rewardThreshold(startS, s);
  const critical = Math.max(u.critical ?? reward.percent, reward.percent);
  const warning = Math.max(u.warning ?? critical, critical);
  const raised = u.critical !== undefined && u.critical < reward.percent ? `uptime.critical ${u.critical}% is under it` : undefined;
  return { warning, critical, hysteresis: u.hysteresis, reward, ...(raised ? { raised } : {}) };
}

/** The tier an uptime is in: entered under a level, left only above it + hysteresis. */
export function tierOf(uptime: number, was: Tier | undefined, l: Levels): Tier | undefined {
  if (uptime < l.critical || (was === 'critical' && uptime < l.critical + l.hysteresis)) return 'critical';
  if (l.warning > l.critical && (uptime < l.warning || (was !== undefined && uptime < l.warning + l.hysteresis))) return 'warning';
  return undefined;
}
