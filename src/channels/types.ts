import type { z } from 'zod';
import type { Clock } from '../base/clock.js';
import type { AlertMessage } from '../base/types.js';
import type { DigestConfig } from './digest.js';
export type { AlertMessage } from '../base/types.js';

/**
 * One failed attempt, classified by the channel. Delivery decides what to do with it.
 * `reason` is a bounded label value; `message` must never hold a secret.
 */
export class DeliveryError extends Error {
  override readonly name = 'DeliveryError';

  constructor(
    message: string,
    readonly reason: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
    /** The request had been sent when the attempt failed (no answer in time, connection lost): the receiver may have it. */
    readonly maybeDelivered = false,
  ) {
    super(message);
  }
}

/**
 * Makes one attempt to deliver one message holding a group of alerts (often a group of
 * one); never retries (retrying lives in delivery.ts only).
 */
export interface Notifier {
  readonly name: string;
  readonly type: string;
  /** Least time between two messages to this receiver (Slack: one a second). */
  readonly minIntervalMs: number;
  /** The longest one attempt can take: a claimed row is held a little longer than this. */
  readonly timeoutMs: number;
  /**
   * A copy sent again changes nothing for the receiver (PagerDuty's dedup_key): an attempt
   * with no answer is retried freely, not at most once.
   */
  readonly idempotent?: boolean;
  send(alerts: readonly AlertMessage[], signal: AbortSignal): Promise<void>;
  /** What the app tells the channel once it listens (Alertmanager's generatorURL, its alerts' lifetime). */
  start?(ctx: ChannelContext): void;
  stop?(): void;
}

export interface ReceiverBase {
  name: string;
  type: string;
  /** Notifications of these severities wait for one message a period (see digest.ts). */
  digest?: DigestConfig | undefined;
}

export interface Channel<C extends ReceiverBase> {
  type: string;
  /** The channel's own keys; `name` and `type` are added by the config loader. */
  schema: z.ZodObject;
  /** Why this receiver cannot send (e.g. its secret is unset), or undefined when it can. */
  disabledReason(config: C): string | undefined;
  /**
   * The receiver's credentials: each a key of its schema (at `path` inside the receiver),
   * with a `…File` variant the loader reads from a file. They never print and are scrubbed.
   */
  secretFields: readonly SecretField[];
  /**
   * Whether the receiver may take a `digest`. Not one that keeps an incident or alert per
   * notification (PagerDuty, Alertmanager): a digest would open one nothing resolves.
   */
  digests: boolean;
  /**
   * A receiver that forgets a firing alert not sent again within this (Alertmanager's
   * resendInterval): the lifecycle's reminders reach it this often, as outbox rows.
   */
  resendInterval?: (config: C) => number;
  create(config: C): Notifier;
}

export interface SecretField {
  /** Where the key sits inside the receiver, e.g. ['smtp', 'auth']; [] for the receiver itself. */
  path: readonly string[];
  key: string;
  /** The value must be an http(s) URL. */
  url: boolean;
}

/** What the app offers a channel that needs to know of it. */
export interface ChannelContext {
  /** The App's clock: a channel stamps on its wall reading and waits on its steady one. */
  clock: Clock;
  /** This daemon's /api/v1/alerts, once it listens. */
  alertsUrl: string | undefined;
  /** How long until the rule is evaluated again (ms); undefined for a rule no longer configured. */
  untilNext: (rule: string) => number | undefined;
}
