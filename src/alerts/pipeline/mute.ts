import type { TimeIntervalConfig } from '../../config/schema.js';
import type { Silence } from '../../store/index.js';
import { inTimeInterval, silenceMatches } from '../silence.js';
import type { Target } from '../route.js';

/**
 * Why a notification with these labels, routed with these mute windows, is muted now, or
 * undefined when it is not. The one place muting is decided: at the commit (the `mute`
 * stage) and again when delivery claims a row that waited (`recheck`).
 */
export function mute(
  labels: Record<string, string>,
  muteTimeIntervals: readonly string[],
  silences: readonly Silence[],
  timeIntervals: readonly TimeIntervalConfig[],
  now: Date,
): string | undefined {
  const silence = silences.find((s) => silenceMatches(s, labels));
  if (silence) return `silenced by #${silence.id} until ${new Date(silence.endsAt).toISOString()}: ${silence.comment}`;
  for (const name of muteTimeIntervals) {
    const ti = timeIntervals.find((t) => t.name === name);
    if (ti && inTimeInterval(ti, now)) return `muted by time interval ${name}`;
  }
  return undefined;
}

/** Each target with why it is muted now, if it is (the silences and mute windows are a person's times: the wall's). */
export function muted(targets: readonly Target[], labels: Record<string, string>, silences: readonly Silence[], timeIntervals: readonly TimeIntervalConfig[], now: Date): Target[] {
  return targets.map((t) => {
    const mutedBy = mute(labels, t.muteTimeIntervals, silences, timeIntervals, now);
    return mutedBy ? { ...t, mutedBy } : t;
  });
}
