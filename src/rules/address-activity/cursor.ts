import type { BlockRangeQuery } from '../../api/data/evm.js';
import { currentKey, isPlaced, type Activity, type Placed } from './activity.js';
import type { List, State } from './schema.js';

// Where a list is read from, and how far a read moves it. startBlock is inclusive, so the
// block a read starts at is read again: the keys already reported there are skipped. A read
// cut short at maxPages moves the cursor only as far as it read: oldest first (the native
// list, sortOrder=asc) the rest lies above; newest first (the ERC-20 and internal lists,
// which take no sortOrder) the rest lies below, kept as a gap that is read before anything newer.

/**
 * Keys remembered past their block, per list: a transaction the service lists again at another
 * block (a reorg, a re-index) within the last this many reported is not reported twice.
 */
export const RECENT_KEYS = 256;

/** What one list answered within the pages read. */
export interface Read {
  items: Activity[];
  /** The list ended within the pages read. */
  complete: boolean;
}

interface Window {
  from: number;
  fromKeys: readonly string[];
  to?: number | undefined;
  toKeys?: readonly string[] | undefined;
}

export interface Advanced {
  state: State;
  /** New since the last read, oldest block first. */
  fresh: Placed[];
  /** A block holding more of this list than maxPages pages: the rest of it is skipped. */
  skipped?: number;
}

/** The next read of a list: a first page newest first for a baseline, else its window. */
export function readQuery(before: State | undefined, list: List, maxPages: number): BlockRangeQuery {
  if (!before) return { pages: 1, ...(list === 'native' ? { sortOrder: 'desc' as const } : {}) };
  const w = windowOf(before);
  return { startBlock: w.from, endBlock: w.to, pages: maxPages, ...(list === 'native' ? { sortOrder: 'asc' as const } : {}) };
}

function windowOf(st: State): Window {
  return st.gap ?? { from: st.from, fromKeys: st.fromKeys };
}

/** The first read: remember the newest block and what it held; report nothing. */
export function baseline(address: string, list: List, read: Read): State {
  const placed = read.items.filter(isPlaced);
  if (placed.length === 0) return { address, list, from: 0, fromKeys: [] };
  const max = Math.max(...placed.map((a) => a.block));
  // A first page all in one block may not hold the whole block: then that block counts as read.
  const whole = read.complete || placed.some((a) => a.block !== max);
  return {
    address,
    list,
    from: whole ? max : max + 1,
    fromKeys: whole ? keysAt(placed, max) : [],
    recent: remember(undefined, [...placed].sort((a, b) => a.block - b.block)),
    ...newest(undefined, placed),
  };
}

export function advance(st: State, read: Read): Advanced {
  const w = windowOf(st);
  const placed = read.items.filter((a): a is Placed => isPlaced(a) && a.block >= w.from && (w.to === undefined || a.block < w.to));
  const asc = placed.length === 0 || ascending(placed, st.list);
  // Reported in the chain's order, within a block too. `unread` moves the cursor; of it, what
  // was reported at another block before is not reported again.
  const unread = freshIn(asc ? placed : [...placed].reverse(), w);
  const known = new Set(st.recent ?? []);
  const fresh = unread.filter((a) => !known.has(a.key));
  const base: State = { ...st, ...newest(st, placed), recent: remember(st.recent, unread) };
  delete base.behind;
  if (!read.complete) base.behind = true;
  if (placed.length === 0) {
    // Nothing in range: a whole read ends a gap; one cut short (items out of range) moves nothing.
    if (read.complete) delete base.gap;
    return { state: base, fresh };
  }
  const max = Math.max(...placed.map((a) => a.block));
  const min = Math.min(...placed.map((a) => a.block));
  const headAt = (block: number) => ({ from: block, fromKeys: keysAt(placed, block, block === w.from ? w.fromKeys : []) });
  if (read.complete) {
    if (st.gap) delete base.gap;
    else Object.assign(base, headAt(max));
    return { state: base, fresh };
  }
  let skipped: number | undefined;
  if (asc) {
    // The rest lies above the newest block read; pages that showed nothing new are one block too full to get past.
    let next = headAt(max);
    if (unread.length === 0) {
      skipped = max;
      next = { from: max + 1, fromKeys: [] };
    }
    if (st.gap) base.gap = { ...st.gap, ...next };
    else Object.assign(base, next);
  } else {
    // The rest lies below the oldest block read.
    let end = { to: min + 1, toKeys: keysAt(placed, min, min + 1 === w.to ? (w.toKeys ?? []) : []) };
    if (unread.length === 0) {
      skipped = min;
      end = { to: min, toKeys: [] };
    }
    base.gap = { from: w.from, fromKeys: [...w.fromKeys], ...end };
    // The gap holds the oldest block read whole: the next read of newer activity starts above it.
    if (!st.gap) Object.assign(base, max > min ? headAt(max) : { from: max + 1, fromKeys: [] });
  }
  if (base.gap && base.gap.to <= base.gap.from) delete base.gap;
  return { state: base, fresh, ...(skipped === undefined ? {} : { skipped }) };
}

/** Items not reported before, each once, oldest block first (stable: `placed` is in the chain's order). */
function freshIn(placed: readonly Placed[], w: Window): Placed[] {
  const fromKeys = new Set(w.fromKeys.map(currentKey));
  const toKeys = new Set((w.toKeys ?? []).map(currentKey));
  const seen = new Set<string>();
  const fresh: Placed[] = [];
  for (const a of placed) {
    if (seen.has(a.key)) continue;
    seen.add(a.key);
    if (a.block === w.from && fromKeys.has(a.key)) continue;
    if (w.to !== undefined && a.block === w.to - 1 && toKeys.has(a.key)) continue;
    fresh.push(a);
  }
  return fresh.sort((a, b) => a.block - b.block);
}

/** The order the list came in; one block throughout says nothing, so the order asked for holds. */
function ascending(placed: readonly Placed[], list: List): boolean {
  const first = (placed[0] as Placed).block;
  const last = (placed.at(-1) as Placed).block;
  return first === last ? list === 'native' : first < last;
}

/** The last RECENT_KEYS keys, oldest first, with `seen` (in order) added. */
function remember(recent: readonly string[] | undefined, seen: readonly Placed[]): string[] {
  const keys = [...(recent ?? []), ...seen.map((a) => a.key)];
  return [...new Set(keys.reverse())].slice(0, RECENT_KEYS).reverse();
}

function keysAt(placed: readonly Placed[], block: number, also: readonly string[] = []): string[] {
  return [...new Set([...also, ...placed.filter((a) => a.block === block).map((a) => a.key)])];
}

function newest(st: State | undefined, placed: readonly Placed[]): Pick<State, 'lastBlock' | 'lastTimestamp'> {
  let lastBlock = st?.lastBlock;
  let lastTimestamp = st?.lastTimestamp;
  for (const a of placed) {
    if (lastBlock === undefined || a.block > lastBlock) lastBlock = a.block;
    if (lastTimestamp === undefined || a.timestamp > lastTimestamp) lastTimestamp = a.timestamp;
  }
  return { ...(lastBlock === undefined ? {} : { lastBlock }), ...(lastTimestamp === undefined ? {} : { lastTimestamp }) };
}
