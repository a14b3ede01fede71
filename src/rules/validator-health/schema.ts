import { z } from 'zod';
import { avaxAmount, durationMs, httpUrl } from '../../base/fields.js';
import { network, nodeId, nodeIds } from '../fields.js';
import { isoTime, upgradeTimes } from '../network.js';
import { period } from '../validators.js';
import { SEMVER } from '../semver.js';

const percent = z.number().min(0).max(100);

export const spec = z
  .strictObject({
    network,
    nodeIds,
    /**
     * On unless turned off (false: no uptime alert at all): critical under `critical` (default:
     * the requirement the validation is judged by, 80% or 90%; never lower), a warning under
     * `warning` only when set (the downtime budget below is the default warning); each tier
     * left only above its level + hysteresis.
     */
    uptime: z
      .union([z.literal(false), z.strictObject({ warning: percent.optional(), critical: percent.optional(), hysteresis: z.number().min(0).max(10).default(1) })])
      .default({ hysteresis: 1 }),
    /**
     * The downtime budget: how much longer the node can be down and still be paid. Critical
     * once it is negative; a warning under `warnBelow` or under `warnShare` percent of the
     * period's whole allowance ((100 − requirement)% of its length), whichever is less.
     */
    budget: z
      .union([z.literal(false), z.strictObject({ warnBelow: durationMs.default(86_400_000), warnShare: percent.default(10) })])
      .default({ warnBelow: 86_400_000, warnShare: 10 }),
    /**
     * Overrides of the requirement, which is built in (src/rules/network.ts: 80%, 90% for a
     * validation that starts at or after Helicon): for a local network, or a schedule avawatch
     * does not know yet. `heliconTime` is `upgrades.helicon`'s older name.
     */
    rewardUptime: z.strictObject({ threshold: percent.optional(), heliconThreshold: percent.optional(), heliconTime: isoTime.optional() }).default({}),
    /** Upgrade times that replace the built-in schedule (the config's `networks.<network>.upgrades` fills it). */
    upgrades: upgradeTimes.optional(),
    /** A P-Chain API (base URL, e.g. https://api.avax.network) to read auto-renewed validators from (the config's `networks.<network>.pChainApi` fills it). */
    pChainApi: httpUrl.optional(),
    /** NodeID → its own AvalancheGo API: its info.uptime, and a P-Chain API (`validators:` fills it from the inventory's `api`). */
    nodeApis: z.record(nodeId, httpUrl).optional(),
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

/** Who saw the uptime: the service's node, the node's own peers (info.uptime), the P-Chain API's node. */
export const VIEWS = ['service', 'node', 'p-chain'] as const;
export type View = (typeof VIEWS)[number];

/** The uptime verdict's tiers, worst last (checks.ts); `ok`: none. */
export const KINDS = ['ok', 'band', 'short', 'under', 'lost'] as const;
export type Kind = (typeof KINDS)[number];

/**
 * One view's uptime over the judged period (percent) and the downtime budget it leaves
 * (seconds, as of when the view was read); what it said this poll (`kind`), for how many polls
 * in a row it has said at least that (`streak`), and what of it counts (`holds`: a view other
 * than the service's must say worse for a few polls before it does).
 */
const viewFigures = z.object({ uptime: z.number(), budget: z.number(), kind: z.enum(KINDS).optional(), streak: z.number().optional(), holds: z.enum(KINDS).optional() });

/** The period the uptime verdict judges: the validation, or an auto-renewed validator's current cycle. */
const judged = z.object({ start: z.number(), end: z.number(), requirement: z.number(), why: z.string(), cycle: z.boolean().optional() });

/** An auto-renewed validator as the P-Chain API last listed it (ACP-236). */
const renew = z.object({
  txId: z.string(),
  /** The current cycle, unix seconds. */
  start: z.number(),
  end: z.number(),
  /** Seconds of the next cycle; 0: it exits at `end`. */
  nextPeriod: z.number(),
  /** Millionths of each cycle's reward restaked. */
  compoundShares: z.number(),
  /** The validator authority ("1 of P-avax1…"), when listed. */
  authority: z.string().optional(),
  /** nAVAX staked, this cycle's potential reward, delegation fees earned in it. */
  weight: z.string(),
  reward: z.string().optional(),
  delegateeReward: z.string().optional(),
});
export type Renew = z.output<typeof renew>;

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
  /** The node's own info.uptime (the stake-weighted uptime its peers see), percent, and when it was read. */
  own: z.object({ uptime: z.number(), at: z.number() }).optional(),
  /** The P-Chain API's node's view (getCurrentValidators `uptime`), when that node is another, and when it was read (seconds). */
  pchainUptime: z.number().optional(),
  pchainAt: z.number().optional(),
  renew: renew.optional(),
  judged: judged.optional(),
  /** Each view's figures for the judged period, as of `at`. */
  views: z.object({ service: viewFigures.optional(), node: viewFigures.optional(), 'p-chain': viewFigures.optional() }).optional(),
});
export type State = z.output<typeof state>;
