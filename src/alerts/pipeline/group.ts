import { monoOf, type Clock } from '../../base/clock.js';
import type { Target } from '../route.js';

/**
 * The `group` stage at the commit: a receiver with a digest takes this severity at its next
 * slot (one message a slot); every other target keeps the group its route gave it
 * (alerts/route.ts: the route's path and its groupBy values), which delivery sends as one message.
 */
/** The wall time of the receiver's next digest slot for this severity, if it digests it. */
export type DigestAt = (receiver: string, severity: string, now: number) => number | undefined;

export function grouped(targets: readonly Target[], severity: string, now: Date, clock: Clock, digestAt: DigestAt): Target[] {
  return targets.map((t) => {
    // The slot is the wall's (a person's schedule); the row waits for it on the steady clock.
    const slot = digestAt(t.receiver, severity, now.getTime());
    return slot === undefined ? t : { ...t, digestAt: monoOf(clock, slot) };
  });
}
