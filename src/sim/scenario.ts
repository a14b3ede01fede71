import { z } from 'zod';
import { TIME_INTERVALS } from '../api/catalog.js';
import { avaxToNavax } from '../base/amount.js';
import { parseDuration } from '../base/duration.js';
import { issuesToProblems } from '../base/issues.js';
import { ConfigError } from '../config/load.js';
import { YamlSource } from '../base/source.js';
import { NETWORKS } from '../rules/fields.js';
import type { BudgetLimits } from './budget.js';
import { mergeDefined, type PeriodInput } from './samples.js';
import { applyLongTail, longTailChange } from './longtail.js';
import type { ValidationChange, World } from './world.js';
import type { AutoRenewInput } from './stakers.js';
import { applyPChainChange, pchainKeys } from './scenario-pchain.js';
import { applyNodeChange, nodeKeys } from './scenario-node.js';
import { applyNetworkChange, networkKeys } from './scenario-network.js';
import { applyEvmChange, evmKeys } from './scenario-evm.js';

/** `+30s`, `-1d`, `30s` relative to the scenario start, or an ISO date. Milliseconds from start. */
/** An event's time: relative to the start (+30s, -1d) or an ISO date. */
export const when = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const text = String(v).trim();
  const sign = text.startsWith('-') ? -1 : 1;
  const ms = parseDuration(text.replace(/^[+-]/, ''));
  if (ms !== undefined) return { relative: true, ms: sign * ms };
  const at = Date.parse(text);
  if (!Number.isNaN(at)) return { relative: false, ms: at };
  ctx.addIssue({ code: 'custom', message: `"${text}" is neither a relative time (+30s, -1d) nor an ISO date` });
  return z.NEVER;
});
type When = z.output<typeof when>;

const avax = z.union([z.string(), z.number()]).transform((v, ctx) => {
  try {
    return avaxToNavax(v);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
    return z.NEVER;
  }
});

const network = z.enum(NETWORKS).default('mainnet');
const percent = z.number().min(0).max(100);

/** What a validation period shows beyond its status, in `validations` items and in `validator`. */
const figures = {
  /** Percent, active periods. */
  uptimePerformance: percent.optional(),
  /** avalancheGoVersion of active periods; null: the node reports none (the field is absent). */
  version: z.string().nullable().optional(),
  /** validatorHealth of active periods, percents; each one given replaces its default. */
  health: z.strictObject({ reachability: percent.optional(), benchedP: percent.optional(), benchedX: percent.optional(), benchedC: percent.optional() }).optional(),
  /** AVAX that can still be delegated (active periods). */
  delegationCapacity: avax.optional(),
  /** AVAX a completed period paid; `validation: 0` is a validation that ended without a reward. */
  reward: z.strictObject({ validation: avax.optional(), delegation: avax.optional() }).optional(),
  /** AVAX staked (amountStaked, the P-Chain's weight); default 2000. */
  stake: avax.optional(),
};
type Figures = z.output<z.ZodObject<typeof figures>>;
const FIGURE_KEYS = Object.keys(figures) as Array<keyof typeof figures>;

/** A completed delegation's rewards, AVAX; either one alone sets the other through the 2 % fee. */
const delegationReward = z.strictObject({ gross: avax.optional(), net: avax.optional() });

/** Seconds of a cycle: a duration (14d), or 0 (it exits at the end of this one). */
const period = z.union([z.literal(0), z.string()]).transform((v, ctx) => {
  if (v === 0) return 0;
  const ms = parseDuration(v);
  if (ms === undefined || ms < 1000) ctx.addIssue({ code: 'custom', message: `"${v}" is neither a duration such as 14d nor 0` });
  return ms === undefined ? z.NEVER : Math.floor(ms / 1000);
});
/** A share written as 50%: millionths, as the P-Chain keeps it. */
const share = z
  .string()
  .regex(/^\d+(\.\d+)?%$/, 'expected a share such as 50%')
  .transform((t) => Math.round(Number(t.slice(0, -1)) * 10_000))
  .refine((ppm) => ppm <= 1_000_000, 'a share is at most 100%');
/** An auto-renewed validation (ACP-236): the config its SetAutoRenewedValidatorConfigTx sets, and what a cycle earns. */
const autoRenewKeys = {
  /** The next cycle's length; 0: it exits at the end of this one. */
  nextPeriod: period,
  /** Of each cycle's reward, restaked. */
  compoundShare: share,
  /** The validator authority's addresses (P-avax1…) and threshold. */
  authority: z.array(z.string().min(1)).min(1),
  threshold: z.number().int().min(1),
  /** AVAX each rewarded cycle pays. */
  reward: avax,
  /** AVAX of delegation fees the current cycle earned. */
  fees: avax,
};
const autoRenew = z.strictObject({
  ...autoRenewKeys,
  compoundShare: share.default(0),
  authority: autoRenewKeys.authority.default(['P-avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsn50c44']),
  threshold: autoRenewKeys.threshold.default(1),
  reward: avax.default(40_000_000_000n),
  fees: avax.default(0n),
});
const autoRenewChange = z.strictObject(Object.fromEntries(Object.entries(autoRenewKeys).map(([k, v]) => [k, v.optional()])) as { [K in keyof typeof autoRenewKeys]: z.ZodOptional<(typeof autoRenewKeys)[K]> });

const validation = z.strictObject({
  network,
  nodeId: z.string(),
  txHash: z.string(),
  start: when,
  end: when,
  status: z.string().default('active'),
  subnetId: z.string().optional(),
  ...figures,
  autoRenew: autoRenew.optional(),
});
const validatorChange = z
  .strictObject({ nodeId: z.string(), txHash: z.string().optional(), status: z.string().optional(), ...figures, autoRenew: autoRenewChange.optional() })
  .refine((v) => v.status !== undefined || v.autoRenew !== undefined || FIGURE_KEYS.some((k) => v[k] !== undefined), {
    message: `nothing to change: give status, autoRenew or one of ${FIGURE_KEYS.join(', ')}`,
  });
const delegation = z.strictObject({
  network,
  txHash: z.string(),
  nodeId: z.string(),
  rewardAddresses: z.array(z.string()).min(1),
  amount: avax,
  start: when,
  end: when,
  status: z.string().default('active'),
  reward: delegationReward.optional(),
});
const delegationChange = z
  .strictObject({ txHash: z.string(), status: z.string().optional(), reward: delegationReward.optional() })
  .refine((d) => d.status !== undefined || d.reward !== undefined, { message: 'nothing to change: give status or reward' });
const l1 = z.strictObject({
  network,
  validationId: z.string(),
  nodeId: z.string(),
  subnetId: z.string(),
  weight: z.number().int().positive().default(100),
  balance: avax,
  feePerSecond: z.number().nonnegative().default(512),
  created: when.prefault('-30d'),
});
const icm = z.strictObject({
  network,
  messageId: z.string(),
  from: z.string(),
  to: z.string(),
  sourceBlockchainId: z.string().default('2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5'),
  destinationBlockchainId: z.string().default('2LFmzhHDKxkreihEtPanVmofuFn63bsh8twnRXEbDhBtCJxURB'),
  sourceEvmChainId: z.string().default('43114'),
  destinationEvmChainId: z.string().default('432204'),
  sent: when,
  status: z.string().default('pending'),
  rewardName: z.string().optional(),
  rewardSymbol: z.string().optional(),
});
/** A series' value from `from` on (default: now); an earlier `from` rewrites the points since then. */
const metric = z.strictObject({
  chainId: z.union([z.string(), z.number()]).transform(String),
  metric: z.string(),
  timeInterval: z.enum(TIME_INTERVALS),
  value: z.number(),
  from: when.optional(),
});
const faults = z.strictObject({
  errorRate: z.number().min(0).max(1).optional(),
  latencyMs: z.number().int().min(0).optional(),
  malformedRate: z.number().min(0).max(1).optional(),
  repeatPageToken: z.boolean().optional(),
  expirePageTokens: z.boolean().optional(),
});
/** Blocks a node proposed on one chain: at these times, or `perHour` from `from` (default -1d) on. */
const proposedBlocks = z
  .strictObject({
    network,
    nodeId: z.string(),
    chain: z.enum(['p-chain', 'c-chain', 'x-chain']),
    times: z.array(when).optional(),
    perHour: z.number().positive().optional(),
    from: when.optional(),
    until: when.optional(),
  })
  .refine((b) => (b.times === undefined) !== (b.perHour === undefined), { message: 'give times or perHour (one of them)' });
const stopProposing = z.strictObject({ nodeId: z.string(), chain: z.enum(['p-chain', 'c-chain', 'x-chain']).optional() });
/** How the aggregator answers for a txHash: `fail` an HTTP status (null: success), after `latencyMs`. */
const signatureAggregator = z.strictObject({ txHash: z.string(), fail: z.number().int().min(400).max(599).nullable().optional(), latencyMs: z.number().int().min(0).optional() });
const exportPlan = z.strictObject({ completeAfterPolls: z.number().int().min(1), outcome: z.enum(['COMPLETED', 'COMPLETED_WITH_WARNING', 'FAILED']) });

/** What a scenario (or a rule test step) can set up or change. */
export const worldChange = z.strictObject({
  validations: z.array(validation).optional(),
  validator: validatorChange.optional(),
  delegations: z.array(delegation).optional(),
  delegation: delegationChange.optional(),
  l1Validators: z.array(l1).optional(),
  l1Validator: z.strictObject({ validationId: z.string(), balance: avax.optional(), feePerSecond: z.number().nonnegative().optional(), deactivate: z.boolean().optional() }).optional(),
  icmMessages: z.array(icm).optional(),
  icm: z.strictObject({ messageId: z.string(), status: z.string() }).optional(),
  metrics: z.array(metric).optional(),
  faults: faults.optional(),
  exports: exportPlan.optional(),
  unknownNode: z.enum(['not-found', 'empty']).optional(),
  /** null turns the floor off again. */
  bulkDefaultMinUptime: percent.nullable().optional(),
  proposedBlocks: z.array(proposedBlocks).optional(),
  /** The node's block rates end now (on one chain, or all). */
  stopProposing: stopProposing.optional(),
  signatureAggregator: z.union([signatureAggregator, z.array(signatureAggregator)]).optional(),
  /** stakingTransactions, subnets, subnet (src/sim/scenario-pchain.ts). */
  ...pchainKeys(when, avax, network),
  /** NFT tokens, deployments, block and X-chain asset transactions (src/sim/longtail.ts). */
  ...longTailChange(when),
  /** EVM transactions with their ERC-20 transfers and internal calls (src/sim/scenario-evm.ts). */
  ...evmKeys(when),
  /** The operators' own node APIs: nodes, node (src/sim/scenario-node.ts). */
  ...nodeKeys(),
  /** A bulk network of made-up validators and its dips: bulkNetwork, networkDip (src/sim/scenario-network.ts). */
  ...networkKeys(),
});
export type WorldChange = z.output<typeof worldChange>;

const budget = z.strictObject({ perMinute: z.number().int().positive(), perDay: z.number().int().positive() });

export const scenarioSchema = z.strictObject({
  start: z.string().optional(),
  speed: z.number().min(0).default(1),
  seed: z.number().int().optional(),
  budget: z.strictObject({ data: budget.optional(), metrics: budget.optional() }).optional(),
  world: worldChange.default({}),
  /** `say`: what the event makes happen, in words; the simulator ignores it, `avawatch demo` prints it. */
  events: z.array(worldChange.extend({ at: when, say: z.string().optional() })).default([]),
});
export type Scenario = z.output<typeof scenarioSchema>;
export type BudgetOverride = Partial<Record<'data' | 'metrics', BudgetLimits>>;

export function loadScenario(file: string): Scenario {
  const source = new YamlSource(file, YamlSource.text(file), process.env);
  const problems = [...source.problems];
  const parsed = source.syntaxOk ? scenarioSchema.safeParse(source.data ?? {}) : undefined;
  if (parsed && !parsed.success) problems.push(...issuesToProblems(source, parsed.error.issues));
  if (problems.length > 0 || !parsed?.success) throw new ConfigError(problems);
  if (parsed.data.start !== undefined && Number.isNaN(Date.parse(parsed.data.start))) {
    throw new ConfigError([source.problem(['start'], `"${parsed.data.start}" is not an ISO date`)]);
  }
  return parsed.data;
}

function toMs(w: When, startMs: number): number {
  return w.relative ? startMs + w.ms : w.ms;
}

/** The scenario's friendly keys as the period's fields (nAVAX strings); undefined: not given. */
function periodFigures(f: Figures): ValidationChange {
  return {
    uptimePerformance: f.uptimePerformance,
    avalancheGoVersion: f.version,
    validatorHealth: f.health && {
      reachabilityPercent: f.health.reachability,
      benchedPChainRequestsPercent: f.health.benchedP,
      benchedXChainRequestsPercent: f.health.benchedX,
      benchedCChainRequestsPercent: f.health.benchedC,
    },
    delegationCapacity: f.delegationCapacity?.toString(),
    rewards: f.reward && { validationRewardAmount: f.reward.validation?.toString(), delegationRewardAmount: f.reward.delegation?.toString() },
    amountStaked: f.stake?.toString(),
  };
}

/** The scenario's auto-renew keys as the world keeps them. */
function autoRenewInput(a: Partial<z.output<typeof autoRenew>>): Partial<AutoRenewInput> {
  const authority = a.authority === undefined && a.threshold === undefined ? undefined : { threshold: a.threshold ?? 1, addresses: a.authority ?? [] };
  return mergeDefined({}, { nextPeriod: a.nextPeriod, compoundShares: a.compoundShare, authority, reward: a.reward, fees: a.fees });
}

function delegationRewards(reward: z.output<typeof delegationReward> | undefined): { grossReward?: string; netReward?: string } {
  return mergeDefined({}, { grossReward: reward?.gross?.toString(), netReward: reward?.net?.toString() });
}

/** Applies one change to the world; times are relative to `startMs`. */
export function applyChange(world: World, change: WorldChange, startMs: number): void {
  const at = (w: When): number => Math.floor(toMs(w, startMs) / 1000);
  for (const v of change.validations ?? []) {
    const period = { nodeId: v.nodeId, txHash: v.txHash, startTimestamp: at(v.start), endTimestamp: at(v.end), ...(v.subnetId === undefined ? {} : { subnetId: v.subnetId }) };
    world.addValidation(v.network, mergeDefined<PeriodInput>(period, periodFigures(v)), v.status, v.autoRenew && (autoRenewInput(v.autoRenew) as AutoRenewInput));
  }
  if (change.validator) {
    const { nodeId, txHash, status, autoRenew: renew, ...rest } = change.validator;
    world.updateValidation(nodeId, { status, ...periodFigures(rest), ...(renew ? { autoRenew: autoRenewInput(renew) } : {}) }, txHash);
  }
  for (const d of change.delegations ?? []) {
    const input = { txHash: d.txHash, nodeId: d.nodeId, rewardAddresses: d.rewardAddresses, amountDelegated: d.amount.toString(), startTimestamp: at(d.start), endTimestamp: at(d.end) };
    world.addDelegation(d.network, { ...input, ...delegationRewards(d.reward) }, d.status);
  }
  if (change.delegation) world.updateDelegation(change.delegation.txHash, { status: change.delegation.status, ...delegationRewards(change.delegation.reward) });
  for (const v of change.l1Validators ?? []) {
    const input = { validationId: v.validationId, nodeId: v.nodeId, subnetId: v.subnetId, weight: v.weight, creationTimestamp: at(v.created) };
    world.addL1Validator(v.network, input, Number(v.balance), v.feePerSecond);
  }
  if (change.l1Validator) {
    const { validationId, balance, ...rest } = change.l1Validator;
    world.updateL1Validator(validationId, { ...rest, ...(balance === undefined ? {} : { balance: Number(balance) }) });
  }
  for (const m of change.icmMessages ?? []) {
    const { network: net, sent, status, ...input } = m;
    world.addIcmMessage(net, { ...input, sourceTimestamp: at(sent) }, status);
  }
  if (change.icm) world.setIcmStatus(change.icm.messageId, change.icm.status);
  for (const m of change.metrics ?? []) world.setMetric(m.chainId, m.metric, m.timeInterval, m.value, m.from ? at(m.from) : undefined);
  if (change.faults) world.settings = { ...world.settings, ...change.faults };
  if (change.exports) world.exportPlan = change.exports;
  if (change.unknownNode) world.unknownNode = change.unknownNode;
  if (change.bulkDefaultMinUptime !== undefined) world.bulkDefaultMinUptime = change.bulkDefaultMinUptime ?? undefined;
  for (const b of change.proposedBlocks ?? []) {
    const where = { network: b.network, nodeId: b.nodeId, chain: b.chain };
    if (b.times) world.proposedBlocks.add({ ...where, times: b.times.map(at) });
    else world.proposedBlocks.add({ ...where, perHour: b.perHour ?? 0, from: at(b.from ?? { relative: true, ms: -86_400_000 }), ...(b.until ? { until: at(b.until) } : {}) });
  }
  if (change.stopProposing) world.proposedBlocks.stop(change.stopProposing.nodeId, change.stopProposing.chain, world.clock.now());
  for (const a of [change.signatureAggregator ?? []].flat()) world.signatureAggregator.set(a.txHash, mergeDefined({}, { fail: a.fail, latencyMs: a.latencyMs }));
  applyPChainChange(world, change, at);
  applyLongTail(world.longTail, change, at);
  applyNodeChange(world.nodes, change);
  applyNetworkChange(world, change);
  applyEvmChange(world, change, at);
}

/** The scenario's events, applied once each as the simulated clock passes them. */
export class Timeline {
  readonly #pending: Array<{ atMs: number; change: WorldChange }>;

  constructor(
    scenario: Scenario,
    readonly startMs: number,
  ) {
    this.#pending = scenario.events
      .map(({ at, say: _say, ...change }) => ({ atMs: toMs(at, startMs), change }))
      .sort((a, b) => a.atMs - b.atMs);
  }

  get remaining(): number {
    return this.#pending.length;
  }

  applyDue(world: World): number {
    let applied = 0;
    while (this.#pending.length > 0 && (this.#pending[0]?.atMs ?? Infinity) <= world.clock.nowMs()) {
      applyChange(world, this.#pending.shift()!.change, this.startMs);
      applied++;
    }
    return applied;
  }
}
