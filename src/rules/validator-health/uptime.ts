import { isoSeconds } from '../format.js';
import type { Spec } from './schema.js';

// Uptime levels follow the reward threshold that applies to the validation (80%, 90% for one
// that starts at or after Helicon): under it the validation earns nothing, so under it is
// always critical. Each level is left only above it + hysteresis, so a node hovering at a
// level sends one message, not one a poll.

export type Tier = 'warning' | 'critical';

/** The default warning level: this many points above the reward threshold. */
export const WARNING_MARGIN = 5;

export interface Levels {
  warning: number;
  critical: number;
  hysteresis: number;
  reward: { percent: number; why: string };
  /** Why critical is where it is, when the reward threshold raised it over uptime.critical. */
  raised?: string;
}

/** 80% for a validation that started before Helicon, 90% at or after it (ACP-267); both configurable. */
export function rewardThreshold(startS: number, s: Spec): { percent: number; why: string } {
  const r = s.rewardUptime;
  const helicon = r.heliconTime === undefined ? undefined : Date.parse(r.heliconTime) / 1000;
  if (helicon !== undefined && startS >= helicon) return { percent: r.heliconThreshold, why: `the validation started at or after Helicon, ${isoSeconds(helicon)}` };
  return { percent: r.threshold, why: helicon === undefined ? 'rewardUptime.heliconTime is not set' : `the validation started before Helicon, ${isoSeconds(helicon)}` };
}

/**
 * The levels for a validation that started at `startS`: by default critical under its reward
 * threshold and warning under it + WARNING_MARGIN. Levels given in the rule stand, except that
 * under the reward threshold is never less than critical (levels written for 80% still page
 * for a Helicon validation at 86%).
 */
export function levelsFor(startS: number, s: Spec): Levels | undefined {
  if (s.uptime === false) return undefined;
  const u = s.uptime;
  const reward = rewardThreshold(startS, s);
  const critical = Math.max(u.critical ?? reward.percent, reward.percent);
  const warning = Math.max(u.warning ?? Math.min(reward.percent + WARNING_MARGIN, 100), critical);
  const raised = u.critical !== undefined && u.critical < reward.percent ? `uptime.critical ${u.critical}% is under it` : undefined;
  return { warning, critical, hysteresis: u.hysteresis, reward, ...(raised ? { raised } : {}) };
}

/** The tier an uptime is in: entered under a level, left only above it + hysteresis. */
export function tierOf(uptime: number, was: Tier | undefined, l: Levels): Tier | undefined {
  if (uptime < l.critical || (was === 'critical' && uptime < l.critical + l.hysteresis)) return 'critical';
  if (uptime < l.warning || (was !== undefined && uptime < l.warning + l.hysteresis)) return 'warning';
  return undefined;
}
