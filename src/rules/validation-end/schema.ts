import { z } from 'zod';
import { formatDuration, parseDuration } from '../../base/duration.js';
import { durationMs, httpUrl } from '../../base/fields.js';
import { network, nodeId, nodeIds, subnetId } from '../fields.js';
import { period } from '../validators.js';

const SHARE = /^\d+(\.\d+)?%$/;

/** `10%`: a share of the period's length (the validation's, or an auto-renewed validator's cycle). */
const share = z
  .string()
  .regex(SHARE, 'expected a share such as 10%')
  .transform((text) => Number(text.slice(0, -1)))
  .refine((p) => p > 0 && p <= 100, 'a share is more than 0% and at most 100%');

/** `14d` or `10%`. */
const written = z.string().transform((text, ctx): { ms: number } | { share: number } => {
  if (!SHARE.test(text)) {
    const ms = parseDuration(text);
    if (ms === undefined) ctx.addIssue({ code: 'custom', message: `"${text}" is neither a duration (14d) nor a share of the validation (10%)` });
    return ms === undefined ? z.NEVER : { ms };
  }
  const p = Number(text.slice(0, -1));
  if (p > 0 && p <= 100) return { share: p };
  ctx.addIssue({ code: 'custom', message: 'a share is more than 0% and at most 100%' });
  return z.NEVER;
});

/**
 * A warning threshold before the end: a duration (`14d`), a share of the period (`10%`), or a
 * share held between a floor and a cap (`{share: 2%, min: 1h, max: 3d}`): a 48-hour validation is
 * then warned within its last hours, a year-long one 3 days before.
 */
export const threshold = z.union(
  [
    written,
    z.strictObject({ share, min: durationMs.optional(), max: durationMs.optional() }).refine((t) => t.min === undefined || t.max === undefined || t.min <= t.max, { message: 'min must not be above max', path: ['min'] }),
  ],
  {
    // The branch the value's type picks says what is wrong with it.
    error: (issue) => {
      const branches = (issue as { errors?: Array<Array<{ message: string; path?: PropertyKey[] }>> }).errors;
      const input = (issue as { input?: unknown }).input;
      const mine = typeof input === 'string' ? branches?.[0]?.[0] : typeof input === 'object' && input !== null ? branches?.[1]?.[0] : undefined;
      if (!mine) return 'expected a duration (14d), a share (10%) or {share: 2%, min: 1h, max: 3d}';
      return mine.path && mine.path.length > 0 ? `${mine.path.map(String).join('.')}: ${mine.message}` : mine.message;
    },
  },
);
export type Threshold = z.output<typeof threshold>;

export const spec = z.strictObject({
  network,
  nodeIds,
  subnetId,
  /** Fire at the largest, escalate at each smaller one (each resolved against the period's length). */
  warnBefore: z.array(threshold).min(1).default([{ ms: 1_209_600_000 }, { ms: 259_200_000 }, { ms: 86_400_000 }]),
  /** A P-Chain API (base URL) that tells an auto-renewed validator: its boundary is no end (the config's `networks.<network>.pChainApi` fills it). */
  pChainApi: httpUrl.optional(),
  /** NodeID → its own AvalancheGo API, a P-Chain API too (`validators:` fills it from the inventory's `api`). */
  nodeApis: z.record(nodeId, httpUrl).optional(),
});
export type Spec = z.output<typeof spec>;

/** An auto-renewed validation as the P-Chain API last listed it: its cycle, and whether it renews at its end. */
const renew = z.object({ txId: z.string(), start: z.number(), end: z.number(), nextPeriod: z.number() });

/** The period avawatch last saw as the node's current one (kept when the node drops out of the list). */
export const state = z.object({ period: period.nullable(), renew: renew.optional() });
export type State = z.output<typeof state>;
export type Renew = NonNullable<State['renew']>;

/** Lists of durations alone, resolved once: they do not depend on the period (a pure memo by the spec's list). */
const fixed = new WeakMap<readonly Threshold[], ReadonlyArray<{ ms: number; text: string }> | null>();

/** The thresholds of a period of `lengthS` seconds, in ms, largest first, each with its text. */
export function thresholdsFor(list: readonly Threshold[], lengthS: number): ReadonlyArray<{ ms: number; text: string }> {
  let known = fixed.get(list);
  if (known === undefined) {
    known = list.every((t) => 'ms' in t) ? resolve(list, 0) : null;
    fixed.set(list, known);
  }
  return known ?? resolve(list, lengthS);
}

/** The largest threshold for a period of `lengthS` seconds, in ms, made without a list: most nodes are far from their end (100k a poll). */
export function largestThreshold(list: readonly Threshold[], lengthS: number): number {
  let largest = 0;
  for (const t of list) {
    const ms = 'ms' in t ? t.ms : Math.min(Math.max(Math.round((t.share / 100) * lengthS * 1000), ('min' in t ? t.min : undefined) ?? 0), ('max' in t ? t.max : undefined) ?? Infinity);
    if (ms > largest) largest = ms;
  }
  return largest;
}

function resolve(list: readonly Threshold[], lengthS: number): Array<{ ms: number; text: string }> {
  const out = new Map<number, string>();
  for (const t of list) {
    let ms: number;
    if ('ms' in t) ms = t.ms;
    else {
      ms = Math.round((t.share / 100) * lengthS * 1000);
      if ('min' in t && t.min !== undefined) ms = Math.max(ms, t.min);
      if ('max' in t && t.max !== undefined) ms = Math.min(ms, t.max);
    }
    if (ms > 0 && !out.has(ms)) out.set(ms, thresholdText(t));
  }
  return [...out].sort((a, b) => b[0] - a[0]).map(([ms, text]) => ({ ms, text }));
}

/** How a threshold was written: `14d`, `10%`, `2% (at least 1h, at most 3d)`. */
export function thresholdText(t: Threshold): string {
  if ('ms' in t) return formatDuration(t.ms);
  const min = 'min' in t ? t.min : undefined;
  const max = 'max' in t ? t.max : undefined;
  const bounds = [min === undefined ? undefined : `at least ${formatDuration(min)}`, max === undefined ? undefined : `at most ${formatDuration(max)}`].filter(Boolean);
  return `${t.share}%${bounds.length > 0 ? ` (${bounds.join(', ')})` : ''}`;
}
