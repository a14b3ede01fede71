import { formatDuration, formatElapsed } from '../base/duration.js';

// Whether each receiver gets what is sent to it: the heartbeat, /readyz and the status page
// read it, so an alert path that is dead is seen outside avawatch too (its own alerts would go
// down the same path).

export interface ReceiverHealthOptions {
  /** Every attempt to a receiver failing this long (none delivered meanwhile) makes it failing. */
  failingAfterMs: number;
  /** A dead-lettered notification keeps its receiver failing until a later one is delivered, or this long. */
  deadLetterHoldMs: number;
}

/** A dead letter as the outbox holds it (read back at start, so a restart does not forget one). */
export interface DeadLetters {
  receiver: string;
  count: number;
  /** Unix ms of the newest. */
  at: number;
  error: string;
}

const ERROR_CHARS = 200;

export class ReceiverHealth {
  readonly #o: ReceiverHealthOptions;
  /** The first failed attempt since the receiver last took one, and the newest error. */
  readonly #failing = new Map<string, { since: number; error: string }>();
  /** Notifications dead-lettered since the receiver last took one. */
  readonly #dead = new Map<string, { count: number; at: number; error: string }>();

  constructor(o: ReceiverHealthOptions, dead: readonly DeadLetters[] = []) {
    this.#o = o;
    this.restore(dead);
  }

  /** The dead letters in the store at start; a receiver's inherited ones (a reload) stay. */
  restore(dead: readonly DeadLetters[]): void {
    for (const d of dead) if (!this.#dead.has(d.receiver)) this.#dead.set(d.receiver, { count: d.count, at: d.at, error: d.error });
  }

  /** After a reload: what the receivers went through still counts. */
  inherit(from: ReceiverHealth): void {
    for (const [k, v] of from.#failing) this.#failing.set(k, v);
    for (const [k, v] of from.#dead) this.#dead.set(k, v);
  }

  failed(receiver: string, error: string, at: number): void {
    this.#failing.set(receiver, { since: this.#failing.get(receiver)?.since ?? at, error });
  }

  deadLettered(receiver: string, count: number, error: string, at: number): void {
    this.#dead.set(receiver, { count: (this.#dead.get(receiver)?.count ?? 0) + count, at, error });
  }

  /** The receiver took a message: it is healthy again. */
  delivered(receiver: string): void {
    this.#failing.delete(receiver);
    this.#dead.delete(receiver);
  }

  /** Nothing waits for the receiver any more (dead-lettered or muted): its failing attempts are over. */
  idle(receiver: string): void {
    this.#failing.delete(receiver);
  }

  /** Why each of these receivers is failing now, one line each (none when all are fine). */
  problems(receivers: readonly string[], now: number): string[] {
    const out: string[] = [];
    for (const r of receivers) {
      const dead = this.#dead.get(r);
      if (dead && now - dead.at < this.#o.deadLetterHoldMs) {
        const n = dead.count === 1 ? '1 notification' : `${dead.count} notifications`;
        out.push(`receiver ${r}: ${n} dead-lettered, the last ${formatElapsed(Math.max(0, now - dead.at))} ago (${clip(dead.error)}); failing until one to it is delivered, or for ${formatDuration(this.#o.deadLetterHoldMs)}`);
        continue;
      }
      const failing = this.#failing.get(r);
      if (failing && now - failing.since >= this.#o.failingAfterMs) {
        out.push(`receiver ${r}: every attempt failed for ${formatElapsed(now - failing.since)} (${clip(failing.error)})`);
      }
    }
    return out;
  }
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > ERROR_CHARS ? `${flat.slice(0, ERROR_CHARS)}…` : flat;
}
