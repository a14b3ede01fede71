import { z } from 'zod';
import { httpUrl } from '../../base/fields.js';
import { network, nodeId } from '../fields.js';
import { period } from '../validators.js';
import { SEMVER } from '../semver.js';
import { upgradeTimes } from '../network.js';

const percent = z.number().min(0).max(100);

/** A chain the node must be bootstrapped on: an alias (P, X, C) or an L1's blockchain id. */
const chain = z.string().regex(/^([PXC]|[1-9A-HJ-NP-Za-km-z]{40,60})$/, 'expected P, X, C or a blockchain id');

export const spec = z
  .strictObject({
    network: network.default('mainnet'),
    /** NodeID → the node's own API (http://127.0.0.1:9650); `validators:` fills it from the inventory's `api`. */
    urls: z.record(nodeId, httpUrl).refine((u) => Object.keys(u).length > 0, 'list at least one node: {NodeID-…: http://127.0.0.1:9650}'),
    /**
     * The NodeIDs the service's bulk list is asked for (it judges only the urls' nodes):
     * `validators:` fills it with every selected validator, API or not, so the list is the very
     * request the validator rules make, answered once a poll. Default: the urls' nodes.
     */
    nodeIds: z.array(nodeId).min(1).optional(),
    /** Chains whose info.isBootstrapped must be true. */
    chains: z.array(chain).min(1).default(['P', 'X', 'C']),
    /** AvalancheGo older than this fires (the same key as validator-health's). */
    minVersion: z.string().regex(SEMVER, 'expected a version such as 1.14.1').optional(),
    /**
     * info.uptime's rewardingStakePercentage: the share of stake that thinks the node meets the
     * uptime requirement. A reward needs most of the stake to vote for it; the defaults keep a margin.
     */
    rewardingStake: z
      .union([z.literal(false), z.strictObject({ warning: percent.default(90), critical: percent.default(80), hysteresis: z.number().min(0).max(10).default(1) })])
      .default({ warning: 90, critical: 80, hysteresis: 1 }),
    /** Fewer connected peers than this fires (false: off). */
    minPeers: z.union([z.literal(false), z.number().int().min(0)]).default(10),
    /**
     * The service's view of the same node (its bulk validator list, shared with the validator
     * rules): an unreachable API is a warning while the network still sees the node, critical
     * once it does not (reachability under `downBelow`, uptime falling, or no active validation).
     * It also gives the BLS key to compare. false: no outside view, an unreachable API is critical.
     */
    outside: z.union([z.literal(false), z.strictObject({ downBelow: percent.default(80) })]).default({ downBelow: 80 }),
    /** Upgrade times that replace the built-in schedule the node's info.upgrades is held to (the config's `networks.<network>.upgrades` fills it). */
    upgrades: upgradeTimes.optional(),
  })
  .refine((s) => s.rewardingStake === false || s.rewardingStake.critical <= s.rewardingStake.warning, {
    message: 'rewardingStake.critical must not be above rewardingStake.warning',
    path: ['rewardingStake', 'critical'],
  });
export type Spec = z.output<typeof spec>;

/** `absent`: answers in a row that left the check out (it is dropped after a few; one odd answer resolves nothing). */
const failingCheck = z.object({ error: z.string(), contiguousFailures: z.number(), since: z.string().optional(), absent: z.number().optional() });

/** What the service says of the node (its active validation), at the last read that answered. */
const outsideView = z.object({
  active: z.boolean(),
  uptime: z.number().optional(),
  reachability: z.number().optional(),
  bls: z.string().optional(),
});

export const state = z.object({
  /** When (seconds) the node was last read, reachable or not. */
  at: z.number().optional(),
  /** Since when (seconds) the API has not answered; absent while it answers. */
  unreachableSince: z.number().optional(),
  /** Why the API did not answer (its last error). */
  unreachable: z.string().optional(),
  /** Failing health checks by name. */
  failing: z.record(z.string(), failingCheck).optional(),
  /** info.isBootstrapped per chain. */
  bootstrapped: z.record(z.string(), z.boolean()).optional(),
  nodeId: z.string().optional(),
  bls: z.string().optional(),
  version: z.string().optional(),
  rewardingStake: z.number().optional(),
  weightedAverage: z.number().optional(),
  peers: z.number().optional(),
  /** info.upgrades: upgrade name → its activation in the node's build, unix seconds. */
  upgrades: z.record(z.string(), z.number()).optional(),
  /** The node's own JSON-RPC errors in a row, per figure (and `peers`: answers in a row without a count): a figure it keeps refusing is cleared, one refusal is not. */
  rpcErrors: z.record(z.string(), z.object({ count: z.number(), error: z.string() })).optional(),
  /** The rewarding-stake alert's tier: where the next poll's hysteresis starts from. */
  stakeTier: z.enum(['warning', 'critical']).optional(),
  // The service's view (shared with validator-status's bookkeeping: the same list reads).
  period: period.nullable().optional(),
  missing: z.boolean().optional(),
  outside: outsideView.optional(),
  /** The service's uptime when the API stopped answering: lower now is the node going down. */
  uptimeAtLoss: z.number().optional(),
  /** The node's APIs that answer 404 (switched off): what they would tell goes unchecked, and is said. */
  off: z.array(z.enum(['health', 'info'])).optional(),
  /** The last verdict on a silent API made with the service's view: it stands while the service is blind too. */
  apiVerdict: z.object({ tier: z.enum(['warning', 'critical']).optional(), view: z.string(), why: z.string().optional() }).optional(),
});
export type State = z.output<typeof state>;
export type OutsideView = z.output<typeof outsideView>;
export type Verdict = NonNullable<State['apiVerdict']>;
