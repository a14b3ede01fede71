import { formatElapsed } from '../../base/duration.js';
import { isoSeconds } from '../format.js';
import type { OddBlock } from './schema.js';

// Block times as the service stamps them. One stamped in milliseconds (above 1e12: the year
// 33658 in seconds) is read in seconds; one still ahead of the clock, or not a positive
// number, is no block time at all. Neither may become the newest block known: a node would
// then never look silent.

/** How far ahead of avawatch's clock a block time may be (the service's clock, the chain's). */
export const MAX_AHEAD_S = 300;
const MS_ABOVE = 1e12;

export interface Block {
  at: number;
  number: string;
}

/** The blocks with a usable time (in seconds), and the last odd one met, if any. */
export function usable(blocks: readonly Block[], nowS: number): { blocks: Block[]; odd?: OddBlock } {
  const out: Block[] = [];
  let odd: OddBlock | undefined;
  for (const b of blocks) {
    if (!Number.isFinite(b.at) || b.at <= 0) {
      odd = { number: b.number, stamped: String(b.at), why: 'invalid', seenAt: nowS };
      continue;
    }
    const ms = b.at > MS_ABOVE;
    const at = ms ? Math.floor(b.at / 1000) : b.at;
    if (at > nowS + MAX_AHEAD_S) {
      odd = { number: b.number, stamped: String(b.at), why: 'ahead', seenAt: nowS };
      continue;
    }
    if (ms) odd = { number: b.number, stamped: String(b.at), why: 'milliseconds', seenAt: nowS };
    out.push({ at, number: b.number });
  }
  return odd ? { blocks: out, odd } : { blocks: out };
}

/** A stored block time still usable (in seconds), else undefined. */
export function usableTime(at: number | undefined, nowS: number): number | undefined {
  return at === undefined ? undefined : usable([{ at, number: '' }], nowS).blocks[0]?.at;
}

/** The detail line that says what was made of an odd block time. */
export function oddText(o: OddBlock): string {
  const listed = Number(o.stamped);
  const seconds = listed > MS_ABOVE ? Math.floor(listed / 1000) : listed;
  if (o.why === 'milliseconds') return `block ${o.number} was listed stamped ${o.stamped}, in milliseconds: read as ${isoSeconds(seconds)}`;
  if (o.why === 'invalid') return `block ${o.number} was listed stamped ${o.stamped}, not a time: ignored`;
  return `block ${o.number} was listed stamped ${isoSeconds(seconds)}, ${formatElapsed((seconds - o.seenAt) * 1000)} ahead of the clock (${isoSeconds(o.seenAt)}): ignored`;
}
