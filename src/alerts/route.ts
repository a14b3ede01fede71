import type { ChildRoute, Config } from '../config/schema.js';

/** Where one alert goes: a receiver, and the group it is sent in. */
export interface Target {
  receiver: string;
  /** Alerts of one receiver with the same key go out as one message. */
  groupKey: string;
  groupWaitMs: number;
  groupIntervalMs: number;
  /** Reminders of a firing state alert to this receiver; 0: none. */
  repeatMs: number;
  /** timeIntervals in which this route is muted. */
  muteTimeIntervals: string[];
  /** Why this notification is muted (a silence or a mute window); it is recorded, not sent. */
  mutedBy?: string;
  /** The receiver's digest slot (unix ms) this notification waits for; undefined: sent as usual. */
  digestAt?: number;
  /**
   * The receiver forgets a firing alert it does not hear of again within this (Alertmanager's
   * resendInterval): reminders reach it this often, whatever the repeat interval.
   */
  resendMs?: number;
  /** A firing child that could join an incident waits this long at least, urgent or not (engine, incidents.wait). */
  minWaitMs?: number;
}

interface Settings {
  receivers: string[];
  groupBy: string[];
  groupWaitMs: number;
  groupIntervalMs: number;
  repeatMs: number;
  muteTimeIntervals: string[];
}

/**
 * Alertmanager's routing: from the root, the first matching child route is taken (and the
 * following ones too while a match says `continue`), recursively; a route with no matching
 * child is where the alert lands. Settings a route leaves out come from its parent.
 */
export function resolveRoutes(route: Config['route'], labels: Record<string, string>, ruleReceivers?: readonly string[]): Target[] {
  const root: Settings = {
    receivers: route.receivers,
    groupBy: route.groupBy,
    groupWaitMs: route.groupWait,
    groupIntervalMs: route.groupInterval,
    repeatMs: route.repeatInterval,
    muteTimeIntervals: route.muteTimeIntervals,
  };
  // A rule that names its receivers bypasses the tree but keeps the root's grouping.
  const leaves = ruleReceivers ? [{ path: 'rule', settings: { ...root, receivers: [...ruleReceivers] } }] : walk(route.routes, labels, root, 'root');
  const seen = new Set<string>();
  const out: Target[] = [];
  for (const { path, settings } of leaves) {
    const key = `${path}{${groupValues(settings.groupBy, labels)}}`;
    for (const receiver of settings.receivers) {
      if (seen.has(`${receiver}\u0000${key}`)) continue;
      seen.add(`${receiver}\u0000${key}`);
      out.push({
        receiver,
        groupKey: key,
        groupWaitMs: settings.groupWaitMs,
        groupIntervalMs: settings.groupIntervalMs,
        repeatMs: settings.repeatMs,
        muteTimeIntervals: settings.muteTimeIntervals,
      });
    }
  }
  return out;
}

function walk(children: readonly ChildRoute[], labels: Record<string, string>, settings: Settings, path: string): Array<{ path: string; settings: Settings }> {
  const out: Array<{ path: string; settings: Settings }> = [];
  for (const [i, child] of children.entries()) {
    if (!matches(child, labels)) continue;
    const inherited: Settings = {
      receivers: child.receivers ?? settings.receivers,
      groupBy: child.groupBy ?? settings.groupBy,
      groupWaitMs: child.groupWait ?? settings.groupWaitMs,
      groupIntervalMs: child.groupInterval ?? settings.groupIntervalMs,
      repeatMs: child.repeatInterval ?? settings.repeatMs,
      muteTimeIntervals: child.muteTimeIntervals ?? settings.muteTimeIntervals,
    };
    const below = walk(child.routes, labels, inherited, `${path}.${i}`);
    out.push(...(below.length > 0 ? below : [{ path: `${path}.${i}`, settings: inherited }]));
    if (!child.continue) return out;
  }
  return out.length > 0 || path !== 'root' ? out : [{ path, settings }];
}

export function matches(route: Pick<ChildRoute, 'match' | 'matchRe'>, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries(route.match ?? {})) if ((labels[k] ?? '') !== v) return false;
  for (const [k, re] of Object.entries(route.matchRe ?? {})) if (!new RegExp(`^(?:${re})$`).test(labels[k] ?? '')) return false;
  return true;
}

function groupValues(groupBy: readonly string[], labels: Record<string, string>): string {
  const keys = groupBy.includes('...') ? Object.keys(labels).sort() : groupBy;
  return keys.map((k) => `${k}=${JSON.stringify(labels[k] ?? '')}`).join(',');
}
