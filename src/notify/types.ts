import type { z } from 'zod';
import type { Secret } from '../config/secret.js';
import type { AlertMessage } from '../types.js';
export type { AlertMessage } from '../types.js';

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
  send(alerts: readonly AlertMessage[], signal: AbortSignal): Promise<void>;
}

export interface ReceiverBase {
  name: string;
  type: string;
}

export interface Channel<C extends ReceiverBase> {
  type: string;
  /** The channel's own keys; `name` and `type` are added by the config loader. */
  schema: z.ZodObject;
  /** Why this receiver cannot send (e.g. its secret is unset), or undefined when it can. */
  disabledReason(config: C): string | undefined;
  secrets(config: C): Secret[];
  create(config: C): Notifier;
}
