import { z } from 'zod';
import { avaxAmount, durationMs } from '../../base/fields.js';
import { network, nodeIds } from '../fields.js';
import { period } from '../validators.js';
import { SEMVER } from '../semver.js';

const percent = z.number().min(0).max(100);
/** An ISO 8601 time with its zone, e.g. 2027-03-01T00:00:00Z. */
const isoTime = z.string().refine((t) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(t) && !Number.isNaN(Date.parse(t)), 'expected a time such as 2027-03-01T00:00:00Z');

export const spec = z
  .strictObject({
    network,
    nodeIds,
    /**
     * On unless turned off: a warning under `warning`, critical under `critical`, each left only
     * above it + hysteresis. Defaults follow the validation's reward threshold (critical under
     * it, warning under it + 5); under the reward threshold is critical whatever is set here.
     */
    uptime: z
      .union([z.literal(false), z.strictObject({ warning: percent.optional(), critical: percent.optional(), hysteresis: z.number().min(0).max(10).default(1) })])
      .default({ hysteresis: 1 }),
    /** The uptime a validation needs for its reward: 80%, 90% for one that starts at or after Helicon (ACP-267). */
    rewardUptime: z
      .strictObject({ threshold: percent.default(80), heliconThreshold: percent.default(90), heliconTime: isoTime.optional() })
      .default({ threshold: 80, heliconThreshold: 90 }),
    /** Any chain's benched-requests percent above `above` for `for` (one sample is never enough). */
    benched: z.strictObject({ above: percent.default(20), for: durationMs.default(600_000) }).optional(),
    /** Reachability percent under `below` for `for`. */
    reachability: z.strictObject({ below: percent.default(80), for: durationMs.default(600_000) }).optional(),
    /** AvalancheGo older than this ("1.14.1"; a pre-release is older than its release): a node that reports no version is never called old. */
    minVersion: z.string().regex(SEMVER, 'expected a version such as 1.14.1').optional(),
    /** Delegation capacity left under this many AVAX. */
    minDelegationCapacity: avaxAmount.optional(),
  })
  .refine((s) => s.uptime === false || s.uptime.critical === undefined || s.uptime.warning === undefined || s.uptime.critical <= s.uptime.warning, {
    message: 'uptime.critical must not be above uptime.warning',
    path: ['uptime', 'critical'],
  });
export type Spec = z.output<typeof spec>;

const chains = z.object({ P: z.number().optional(), X: z.number().optional(), C: z.number().optional() });

export const state = z.object({
  /** The period the node validates in (shared with the kinds that read validators). */
  period: period.nullable(),
  missing: z.boolean().optional(),
  /** When (seconds) the figures below were read. */
  at: z.number().optional(),
  uptime: z.number().optional(),
  benched: chains.optional(),
  reachability: z.number().optional(),
  version: z.string().optional(),
  /** nAVAX, exact. */
  staked: z.string().optional(),
  delegated: z.string().optional(),
  capacity: z.string().optional(),
  potentialReward: z.string().optional(),
  /** The uptime alert's tier: where the next poll's hysteresis starts from. */
  uptimeTier: z.enum(['warning', 'critical']).optional(),
  /** Written before tiers were kept: read as a warning. */
  uptimeFiring: z.boolean().optional(),
  /** Since when (seconds) a check has held, for its `for`. */
  benchedSince: z.number().optional(),
  unreachableSince: z.number().optional(),
});
export type State = z.output<typeof state>;
