import type { Secret } from '../base/secret.js';
import { postForAnswer } from '../channels/post-json.js';
import type { Clock } from '../base/clock.js';
import type { Cancel } from '../base/timers.js';

// A dead man's switch: something that is not avawatch hears from it every `every`, on one URL
// while every source answered and on the failure URL while one is blind (or a receiver takes
// nothing: avawatch's alerts would not get out either). Silence there means
// avawatch is dead, stuck or cut off; none of that can be told by avawatch's own alerts.

export interface HeartbeatOptions {
  url: Secret;
  /** Default: `url` + /fail (healthchecks.io's failure signal). */
  failUrl?: Secret | undefined;
  everyMs: number;
  timeoutMs: number;
  /**
   * Why the last cycle was blind (each source that did not answer), or `starting` while not
   * every rule has been evaluated once (no ping: a first cycle says nothing yet).
   */
  blindness: () => readonly string[] | 'starting' | Promise<readonly string[] | 'starting'>;
  /** Removes secrets from what the ping body and the log say. */
  redact: (text: string) => string;
  onPing?: (outcome: 'ok' | 'fail' | 'error', error?: string) => void;
  /** The App's: the beats' interval runs on it. */
  clock: Clock;
}

export type Beat = { outcome: 'ok' | 'fail'; why: readonly string[] } | { outcome: 'error'; error: string } | { outcome: 'skipped' };

export class Heartbeat {
  readonly #o: HeartbeatOptions;
  #timer: Cancel | undefined;
  #stopping = new AbortController();
  #beating: Promise<Beat> | undefined;

  constructor(o: HeartbeatOptions) {
    this.#o = o;
  }

  start(): void {
    if (this.#timer !== undefined || this.#stopping.signal.aborted) return;
    const tick = (): void => {
      void this.beat().finally(() => {
        if (!this.#stopping.signal.aborted) this.#timer = this.#o.clock.setTimer(tick, this.#o.everyMs);
      });
    };
    this.#timer = this.#o.clock.setTimer(tick, this.#o.everyMs);
  }

  /** One ping now: the URL when every source answered, the failure URL when one is blind. Never throws. */
  beat(): Promise<Beat> {
    // A ping still under way (a slow monitor) is the one of this cycle too.
    this.#beating ??= this.#ping().finally(() => (this.#beating = undefined));
    return this.#beating;
  }

  async #ping(): Promise<Beat> {
    let blind: readonly string[] | 'starting';
    try {
      blind = await this.#o.blindness();
    } catch (err) {
      blind = [`avawatch could not tell its own state: ${err instanceof Error ? err.message : String(err)}`];
    }
    if (blind === 'starting' || this.#stopping.signal.aborted) return { outcome: 'skipped' };
    const outcome = blind.length === 0 ? 'ok' : 'fail';
    const url = outcome === 'ok' ? this.#o.url.reveal() : (this.#o.failUrl?.reveal() ?? failUrlOf(this.#o.url.reveal()));
    // The monitor shows the body beside the ping: why, for a person reading it there.
    const body = JSON.stringify({ status: outcome === 'ok' ? 'every source answered' : 'blind', blind: blind.slice(0, 20).map((b) => this.#o.redact(b).slice(0, 300)) });
    try {
      const res = await postForAnswer(url, body, { prefix: 'heartbeat', timeoutMs: this.#o.timeoutMs, signal: this.#stopping.signal });
      if (res.status < 200 || res.status >= 300) throw new Error(`heartbeat: HTTP ${res.status}`);
    } catch (err) {
      // Stopped mid-ping (shutdown, a reload): not the monitor's failure.
      if (this.#stopping.signal.aborted) return { outcome: 'skipped' };
      const error = this.#o.redact(err instanceof Error ? err.message : String(err));
      this.#o.onPing?.('error', error);
      return { outcome: 'error', error };
    }
    this.#o.onPing?.(outcome);
    return { outcome, why: blind };
  }

  stop(): void {
    this.#stopping.abort();
    this.#timer?.();
    this.#timer = undefined;
  }
}

/** healthchecks.io's failure signal: /fail after the path, before any query (`?create=1`). */
export function failUrlOf(url: string): string {
  const u = new URL(url);
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/fail`;
  return u.href;
}
