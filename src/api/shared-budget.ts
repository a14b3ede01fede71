import { systemClock, type Clock } from '../base/clock.js';
import type { Logger } from '../base/log.js';
import type { Secret } from '../base/secret.js';
import { within, type Cancel } from '../base/timers.js';

// One compute-unit budget shared by the instances that spend on one API key (shared state in
// PostgreSQL: docs/operations.md "Shared state"). Each instance's Limiter still spreads,
// orders by severity and listens to the service; before it lets a request through it takes
// the units from a block held here. A block is a slice of the minute, reserved in the shared
// ledger in one round trip (store/postgres/budget.ts) and spent locally, so the database is
// asked once per block, not once per request:
//
// - The ledger counts reservations per second of the database's clock and grants a block only
//   while every window of `windowS` seconds and the UTC day stay within the plan. A block is
//   spent for at most `blockMs` (counted on this host's steady clock from before it was asked,
//   so no later than the database's clock says), then its unspent units go back. So what is
//   spent in any 60 s was reserved in a window of 60 s + blockMs + 1 s (the second is
//   truncated): the ledger checks that wider window, and the instances together never spend
//   more than the plan's minute; in steady state they can spend about 60/windowS of it.
// - The day is the ledger's: a restarted or new instance sees what the others spent today.
// - A database that does not answer within `capMs` (or fails) is not waited for: the instance
//   spends a local share, the plan divided by the instances it last saw live (two when it saw
//   none yet: a shared store is there for several), counting what it spent from blocks in the
//   last minute, and the rest of the day divided alike. It says so in the log once, asks the
//   database again at most every `retryMs` in the background, and records what it spent
//   meanwhile at the first answer. An instance cut off for a whole lease steps down and spends
//   nothing (app/shards.ts): the local share only bridges that lease.

/** A plan's limits (limiter.ts BudgetLimits; not imported: the Limiter imports this file). */
interface BudgetLimits {
  perMinute: number;
  perDay: number;
}

/** What the ledger is asked for (store/types.ts SharedBudget: the same shape). */
export interface LedgerAsk {
  /** Fewer units than this free: nothing is granted (the request waiting needs them). */
  min: number;
  /** As many as this, if free. */
  want: number;
  /** Units of the window left to others (the severity's reserve): not granted. */
  keep: number;
  /** Spent while the ledger did not answer: recorded now, before the grant. */
  owed: number;
  /** The window, in seconds, that must stay within limits.perMinute. */
  windowS: number;
  /** Units reserved in these seconds and not spent, given back first. */
  back: readonly LedgerReturn[];
  limits: BudgetLimits;
}

export interface LedgerReturn {
  /** Unix seconds of the database's clock: the block's second. */
  second: number;
  units: number;
}

export interface LedgerGrant {
  /** The second (database's clock, unix s) the units are reserved in. */
  second: number;
  granted: number;
  /** Reserved in the window and today, this grant included. */
  window: number;
  day: number;
  /** Instances alive now (their membership leases). */
  members: number;
}

/** The shared ledger: a StateStore's `budget` (PostgreSQL), structurally. */
export interface BudgetLedger {
  reserve(budget: string, ask: LedgerAsk): Promise<LedgerGrant>;
  giveBack(budget: string, back: readonly LedgerReturn[]): Promise<void>;
}

/**
 * The ledger's name of an API's budget: its key by a digest, never the key. Keyless calls
 * share one budget per API: the service meters them by address, which instances behind one
 * NAT share (on separate addresses it is a conservative choice).
 */
export function budgetName(api: 'data' | 'metrics', key: Secret | undefined): string {
  return `${api}:${key ? key.digest('avawatch compute-unit budget') : 'keyless'}`;
}

/** What take() answers the Limiter: a ticket for the units taken, or why not. */
export type Taken = { block: number; second: number } | 'wait' | 'day-spent';

export interface AllowanceOptions {
  ledger: BudgetLedger;
  /** budgetName(). */
  budget: string;
  limits: BudgetLimits;
  /** The API, for the log. */
  api: string;
  log: Logger;
  /** How long a block is spent (default 5 s); its unspent units then go back. */
  blockMs?: number;
  /** The longest a request waits for the ledger before the local share (default 2 s). */
  capMs?: number;
  /** The ledger asked again at most this often while it does not answer (default 5 s). */
  retryMs?: number;
  /** The host's clock by default: the database's time passes at its pace, not the App's. */
  clock?: Clock;
}

/** A minute that is short: asked again after this long. */
const STARVED_MS = 1_000;
/** A spent day: believed this long before the ledger is asked again (another may give back, the day may end). */
const DAY_SPENT_MS = 60_000;
/** How long close() waits for its give-back: as long as closing the HTTP agents beside it (a stop has 10 s in all). */
const CLOSE_CAP_MS = 1_000;
/** The instances assumed before any was seen: a shared store is there for several. */
const UNSEEN_MEMBERS = 2;

interface Block {
  id: number;
  second: number;
  left: number;
  spent: number;
  until: number;
}

/** The units this instance holds of a shared budget (see the top of this file). */
export class SharedAllowance {
  readonly #o: AllowanceOptions;
  readonly #clock: Clock;
  readonly #blockMs: number;
  readonly #capMs: number;
  readonly #retryMs: number;
  /** The window the ledger keeps within the minute's budget: a minute, a block's life and the second it is truncated to. */
  readonly windowS: number;
  /** Called when a wait may be over (a block came, the ledger did not answer): the Limiter pumps. */
  onReady: (() => void) | undefined;
  #block: Block | undefined;
  #ids = 0;
  #nextWant: number;
  /** Units to give back with the next call. */
  #back: LedgerReturn[] = [];
  /** The call to the ledger under way (one at a time), until it ends, even past the cap. */
  #call: Promise<void> | undefined;
  /** No call before (steady ms): the minute was short, or the ledger did not answer. */
  #askAt = 0;
  #daySpent: { until: number; left: number } | undefined;
  #seen: { day: number; wallDay: number; members: number } | undefined;
  /** Spent from the local share, not yet recorded in the ledger. */
  #owed = 0;
  /** Since when (steady) the ledger does not answer: the local share is spent meanwhile. */
  #localSince: number | undefined;
  #localDay = { wallDay: -1, spent: 0 };
  /** What this instance spent, per second of the last minute (steady), blocks and local share alike. */
  readonly #recent: Array<{ at: number; cu: number }> = Array.from({ length: 60 }, () => ({ at: -1, cu: 0 }));
  #expiry: Cancel | undefined;
  #closed = false;

  constructor(o: AllowanceOptions) {
    this.#o = o;
    this.#clock = o.clock ?? systemClock;
    this.#blockMs = o.blockMs ?? 5_000;
    this.#capMs = o.capMs ?? 2_000;
    this.#retryMs = o.retryMs ?? 5_000;
    this.windowS = 60 + Math.ceil(this.#blockMs / 1000) + 1;
    this.#nextWant = Math.ceil(this.#maxBlock() / 2);
  }

  /** Units the plan spends in a block's life at its full rate. */
  #maxBlock(): number {
    return Math.max(1, Math.ceil((this.#o.limits.perMinute * this.#blockMs) / 60_000));
  }

  /** Whether the local share is spent (the ledger did not answer). */
  get local(): boolean {
    return this.#localSince !== undefined;
  }

  /**
   * Takes `cu` for a request of a severity that leaves `reserve` (a share) of the minute to
   * others: from the block in hand, or the local share; otherwise a block is asked for (at
   * most one call at a time) and onReady says when to try again.
   */
  take(cu: number, reserve: number): Taken {
    const now = this.#clock.mono();
    this.#expire(now);
    const block = this.#block;
    if (block && block.left >= cu) {
      block.left -= cu;
      block.spent += cu;
      this.#count(now, cu);
      return { block: block.id, second: block.second };
    }
    if (this.#localSince !== undefined) {
      this.#ask(now, cu, reserve);
      return this.#takeLocal(now, cu);
    }
    if (this.#daySpent && now < this.#daySpent.until && cu > this.#daySpent.left) return 'day-spent';
    this.#ask(now, cu, reserve);
    return 'wait';
  }

  /** A request that got no answer gives its units back: to its block while it lasts, else to the ledger. */
  giveBack(cu: number, ticket: { block: number; second: number }): void {
    const block = this.#block;
    if (ticket.block === 0) {
      this.#owed = Math.max(0, this.#owed - cu);
      this.#localDay.spent = Math.max(0, this.#localDay.spent - cu);
    } else if (block?.id === ticket.block) {
      block.left += cu;
      block.spent -= cu;
    } else {
      this.#back.push({ second: ticket.second, units: cu });
    }
  }

  /**
   * Gives the block in hand back (a stop, a reload that replaced this budget), waiting at
   * most a second: units not given back stay reserved, counted as spent.
   */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#block) this.#retire(this.#block);
    const back = this.#back.splice(0);
    if (back.length === 0) return;
    await within(systemClock, CLOSE_CAP_MS, this.#o.ledger.giveBack(this.#o.budget, back).catch(() => undefined), () => undefined);
  }

  /** What the day has left as last seen (the block in hand counted as left), once the ledger answered. */
  remainingDay(): number | undefined {
    if (!this.#seen) return undefined;
    const day = this.#seen.wallDay === wallDay(this.#clock) ? this.#seen.day : 0;
    return Math.max(0, this.#o.limits.perDay - day + (this.#block?.left ?? 0) - this.#owed);
  }

  #count(now: number, cu: number): void {
    const second = Math.floor(now / 1000);
    const slot = this.#recent[second % 60] as { at: number; cu: number };
    if (slot.at !== second) Object.assign(slot, { at: second, cu: 0 });
    slot.cu += cu;
  }

  #recentSpent(now: number): number {
    const second = Math.floor(now / 1000);
    return this.#recent.reduce((sum, s) => (s.at > second - 60 ? sum + s.cu : sum), 0);
  }

  /** A block past its life: its unspent units go back (with the call under way, or now). */
  #expire(now: number): void {
    const block = this.#block;
    if (!block || now < block.until) return;
    this.#retire(block);
    if (!this.#call && this.#back.length > 0) {
      // Not given back (no answer): they stay reserved, counted as spent; never more than the plan.
      this.#o.ledger.giveBack(this.#o.budget, this.#back.splice(0)).catch(() => undefined);
    }
  }

  #retire(block: Block): void {
    if (block.left > 0) this.#back.push({ second: block.second, units: block.left });
    // The next block: twice what this one spent, between an eighth of the full rate's and all of it.
    this.#nextWant = Math.min(this.#maxBlock(), Math.max(Math.ceil(this.#maxBlock() / 8), 2 * block.spent));
    this.#block = undefined;
    this.#expiry?.();
  }

  /** The local share: the plan over the instances last seen, this instance's last minute counted. */
  #takeLocal(now: number, cu: number): Taken {
    const members = this.#members();
    const today = wallDay(this.#clock);
    if (this.#localDay.wallDay !== today) this.#localDay = { wallDay: today, spent: 0 };
    const daySeen = this.#seen?.wallDay === today ? this.#seen.day : 0;
    if (this.#localDay.spent + cu > Math.floor((this.#o.limits.perDay - daySeen) / members)) return 'day-spent';
    const spent = this.#recentSpent(now);
    // An empty minute lets one request through, however large (as the Limiter does).
    if (spent > 0 && spent + cu > Math.floor(this.#o.limits.perMinute / members)) return 'wait';
    this.#localDay.spent += cu;
    this.#owed += cu;
    this.#count(now, cu);
    return { block: 0, second: 0 };
  }

  #members(): number {
    return Math.max(1, this.#seen?.members ?? UNSEEN_MEMBERS);
  }

  /**
   * One call to the ledger, unless one is under way or it is not time yet: the block in hand
   * (if any) goes back with it. A call that does not end within the cap turns the local share
   * on at once; it is not cancelled, and the next waits for it (the pool's timeout ends it).
   */
  #ask(now: number, cu: number, reserve: number): void {
    if (this.#call || now < this.#askAt) return;
    const { ledger, budget, limits } = this.#o;
    if (this.#block) this.#retire(this.#block);
    const owed = this.#owed;
    const ask = { min: cu, want: Math.max(cu, this.#nextWant), keep: Math.floor(limits.perMinute * reserve), owed, windowS: this.windowS, back: this.#back.splice(0), limits };
    let late = false;
    const call = ledger.reserve(budget, ask).then(
      (grant) => {
        // Recorded whether it came in time or not: what was owed is in the ledger now.
        this.#owed = Math.max(0, this.#owed - owed);
        this.#seen = { day: grant.day, wallDay: wallDay(this.#clock), members: grant.members };
        if (!late && !this.#closed) this.#answered(now, cu, grant);
        // Too late (the requests went on with the local share), or closed meanwhile: the block goes back.
        else if (grant.granted > 0) ledger.giveBack(budget, [{ second: grant.second, units: grant.granted }]).catch(() => undefined);
      },
      (err: unknown) => {
        if (!late) this.#unanswered(now, err instanceof Error ? err.message : String(err));
      },
    );
    // The host's time: the database answers at its pace, whatever the App's clock does.
    const cap = systemClock.setTimer(
      () => {
        late = true;
        this.#unanswered(now, `no answer within ${this.#capMs} ms`);
        this.onReady?.();
      },
      this.#capMs,
      { unref: true },
    );
    this.#call = call.finally(() => {
      cap();
      this.#call = undefined;
      if (!late) this.onReady?.();
    });
  }

  #answered(asked: number, cu: number, grant: LedgerGrant): void {
    const { log, api, limits } = this.#o;
    const blockMs = this.#blockMs;
    if (this.#localSince !== undefined) {
      log.info({ api }, 'shared compute-unit budget: PostgreSQL answers again; units are reserved in the shared ledger again');
      this.#localSince = undefined;
    }
    this.#daySpent = undefined;
    if (grant.granted > 0) {
      this.#block = { id: ++this.#ids, second: grant.second, left: grant.granted, spent: 0, until: asked + blockMs };
      this.#expiry = this.#clock.setTimer(() => this.#expire(this.#clock.mono()), asked + blockMs - this.#clock.mono(), { unref: true });
    } else if (limits.perDay - grant.day < cu) {
      this.#daySpent = { until: asked + DAY_SPENT_MS, left: limits.perDay - grant.day };
    } else {
      this.#askAt = asked + STARVED_MS;
    }
  }

  #unanswered(asked: number, why: string): void {
    this.#askAt = asked + this.#retryMs;
    if (this.#localSince !== undefined) return;
    this.#localSince = asked;
    const members = this.#members();
    this.#o.log.warn(
      { api: this.#o.api, error: why, members },
      `shared compute-unit budget: PostgreSQL did not answer (${why}); spending a local share, 1/${members} of the plan (${Math.floor(this.#o.limits.perMinute / members)} CU a minute), until it does`,
    );
  }
}

/** The UTC day of the clock's wall reading: the service's day. */
function wallDay(clock: Clock): number {
  return Math.floor(clock.now() / 86_400_000);
}
