import { z } from 'zod';
import { METRICS, supportedIntervals, TIME_INTERVALS } from '../../api/catalog.js';
import { durationMs } from '../../base/fields.js';

export const spec = z
  .strictObject({
    /** An EVM chain id, or total | mainnet | testnet. */
    chainId: z.union([z.number().int().positive().transform(String), z.string().regex(/^(\d+|total|mainnet|testnet)$/, 'expected an EVM chain id or total, mainnet, testnet')]),
    metric: z.enum(METRICS),
    timeInterval: z.enum(TIME_INTERVALS).default('day'),
    above: z.number().optional(),
    below: z.number().optional(),
    /** The condition must hold on every complete point within this span. */
    for: durationMs.default(0),
    /** Judge the newest point too, though its interval is still running. */
    includeIncomplete: z.boolean().default(false),
  })
  .superRefine((s, ctx) => {
    if ((s.above === undefined) === (s.below === undefined)) ctx.addIssue({ code: 'custom', message: 'set exactly one of "above" or "below"' });
    const allowed = supportedIntervals(s.metric);
    if (!allowed.includes(s.timeInterval)) {
      ctx.addIssue({ code: 'custom', path: ['timeInterval'], message: `${s.metric} supports only timeInterval ${allowed.join(', ')}` });
    }
  });
export type Spec = z.output<typeof spec>;

export const state = z.object({ timestamp: z.number(), value: z.number() });
export type State = z.output<typeof state>;
