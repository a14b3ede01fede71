import { z } from 'zod';
import { network } from '../fields.js';

const percent = z.number().min(0).max(100);

export const spec = z.strictObject({
  network,
  /** Pages of 100 the sweep reads at most; past them it fails (never a part read as the whole). */
  maxPages: z.number().int().min(1).max(1_000).default(60),
  /** Validators the network is expected to have: how `check` prices the sweep (default: mainnet 1,500, fuji 300). */
  expectValidators: z.number().int().min(1).optional(),
  /** A validator is "below" when its uptime or reachability is under these, or its benched share above `benched`. */
  below: z
    .strictObject({ uptime: percent.default(80), reachability: percent.default(80), benched: percent.default(20) })
    .default({ uptime: 80, reachability: 80, benched: 20 }),
  /** A sweep with fewer validators than this share (%) of the last whole one is partial. */
  minShareOfLast: percent.default(90),
});
export type Spec = z.output<typeof spec>;

const quantiles = z.object({ p10: z.number(), p50: z.number(), p90: z.number() });
export type Quantiles = z.output<typeof quantiles>;

/** One validator's figures in the last whole sweep: uptime, reachability, max benched (each -1: not given), stake share (%). */
const figures = z.tuple([z.number(), z.number(), z.number(), z.number()]);

/** The distribution of one whole sweep. */
export const whole = z.object({
  /** When it was read (unix ms). */
  at: z.number(),
  count: z.number(),
  uptime: quantiles.optional(),
  reachability: quantiles.optional(),
  benched: quantiles.optional(),
  /** AvalancheGo version ("1.14.1", or "unknown") → validators. */
  versions: z.record(z.string(), z.number()),
  /** Share (%) of the sweep's stake on validators below each threshold. */
  below: z.object({ uptime: z.number(), reachability: z.number(), benched: z.number() }),
  nodes: z.record(z.string(), figures),
});
export type Whole = z.output<typeof whole>;

/** Per network: the last sweep's verdict and the last whole one (kept while a later one is partial). */
export const state = z.object({
  /** When the last sweep answered (unix ms). */
  at: z.number(),
  complete: z.boolean(),
  count: z.number(),
  /** Why the last sweep is not whole. */
  why: z.string().optional(),
  whole: whole.optional(),
});
export type State = z.output<typeof state>;
