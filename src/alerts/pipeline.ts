import type { TimeIntervalConfig } from '../config/schema.js';
import type { Silence } from '../store/index.js';
import type { Severity } from '../base/types.js';
import { inTimeInterval, silenceMatches } from './silence.js';

// The alert pipeline: one way in, one way out, each stage in one place.
//
// Commit (the engine, one SQLite transaction per evaluation):
//   enrich   alertLabels() below: the rule's labels, the kind's, rule and severity, merged once
//   route    resolveRoutes (route.ts): the receivers, their group and how often they hear again
//   mute     mute() below: a silence or a mute window; decided here only
//   hold     IncidentTracker.heldFor (engine/incidents.ts): a firing alert of a firing incident,
//            held from the receivers the incident reaches (never a resolution)
//   plan     planNotifications (receivers.ts): per receiver, reminders and resends (Alertmanager's
//            resendInterval), and the notifications owed once a mute ends
//   enqueue  Store.commitEvaluation: the alert row, one outbox row per target
// Send (delivery/delivery.ts, the only code that sends):
//   claim    Store.claimDue: a receiver's due rows, leased
//   group    the rows of one group key become one message (a digest: one a slot)
//   recheck  mute() again: a silence added while the row waited; the hold again
//   send     the channel's Notifier.send: one attempt
//   retry    backoff, Retry-After, pauses, dead letters

/** An alert's labels as it is routed, silenced and delivered. */
export function alertLabels(rule: { name: string; labels?: Record<string, string> | undefined }, labels: Record<string, string>, severity: Severity): Record<string, string> {
  return { ...rule.labels, ...labels, rule: rule.name, severity };
}

/**
 * Why a notification with these labels, routed with these mute windows, is muted now, or
 * undefined when it is not. The one place muting is decided.
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
