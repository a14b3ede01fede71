import { z } from 'zod';
import { TIME_INTERVALS } from '../api/catalog.js';
import { avaxToNavax } from '../amount.js';
import { parseDuration } from '../config/duration.js';
import { issuesToProblems } from '../config/issues.js';
import { ConfigError } from '../config/load.js';
import { YamlSource } from '../config/source.js';
import { NETWORKS } from '../rules/fields.js';
import type { BudgetLimits } from './budget.js';
import type { World } from './world.js';

/** `+30s`, `-1d`, `30s` relative to the scenario start, or an ISO date. Milliseconds from start. */
const when = z.union([z.string(), z.number()]).transform((v, ctx) => {
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
const validation = z.strictObject({
  network,
  nodeId: z.string(),
  txHash: z.string(),
  start: when,
  end: when,
  status: z.string().default('active'),
  subnetId: z.string().optional(),
  uptimePerformance: percent.optional(),
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
});
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
const metric = z.strictObject({ chainId: z.union([z.string(), z.number()]).transform(String), metric: z.string(), timeInterval: z.enum(TIME_INTERVALS), value: z.number() });
const faults = z.strictObject({
  errorRate: z.number().min(0).max(1).optional(),
  latencyMs: z.number().int().min(0).optional(),
  malformedRate: z.number().min(0).max(1).optional(),
  repeatPageToken: z.boolean().optional(),
  expirePageTokens: z.boolean().optional(),
});
const exportPlan = z.strictObject({ completeAfterPolls: z.number().int().min(1), outcome: z.enum(['COMPLETED', 'COMPLETED_WITH_WARNING', 'FAILED']) });

/** What a scenario (or a rule test step) can set up or change. */
export const worldChange = z.strictObject({
  validations: z.array(validation).optional(),
  validator: z.strictObject({ nodeId: z.string(), status: z.string(), txHash: z.string().optional() }).optional(),
  delegations: z.array(delegation).optional(),
  delegation: z.strictObject({ txHash: z.string(), status: z.string() }).optional(),
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
});
export type WorldChange = z.output<typeof worldChange>;

const budget = z.strictObject({ perMinute: z.number().int().positive(), perDay: z.number().int().positive() });

export const scenarioSchema = z.strictObject({
  start: z.string().optional(),
  speed: z.number().min(0).default(1),
  seed: z.number().int().optional(),
  budget: z.strictObject({ data: budget.optional(), metrics: budget.optional() }).optional(),
  world: worldChange.default({}),
  events: z.array(worldChange.extend({ at: when })).default([]),
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

/** Applies one change to the world; times are relative to `startMs`. */
export function applyChange(world: World, change: WorldChange, startMs: number): void {
  const at = (w: When): number => Math.floor(toMs(w, startMs) / 1000);
  for (const { network: net, start, end, status, ...input } of change.validations ?? []) {
    world.addValidation(net, { ...input, startTimestamp: at(start), endTimestamp: at(end) }, status);
  }
  if (change.validator) world.setValidationStatus(change.validator.nodeId, change.validator.status, change.validator.txHash);
  for (const d of change.delegations ?? []) {
    const input = { txHash: d.txHash, nodeId: d.nodeId, rewardAddresses: d.rewardAddresses, amountDelegated: d.amount.toString(), startTimestamp: at(d.start), endTimestamp: at(d.end) };
    world.addDelegation(d.network, input, d.status);
  }
  if (change.delegation) world.setDelegationStatus(change.delegation.txHash, change.delegation.status);
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
  for (const m of change.metrics ?? []) world.setMetric(m.chainId, m.metric, m.timeInterval, m.value);
  if (change.faults) world.settings = { ...world.settings, ...change.faults };
  if (change.exports) world.exportPlan = change.exports;
  if (change.unknownNode) world.unknownNode = change.unknownNode;
  if (change.bulkDefaultMinUptime !== undefined) world.bulkDefaultMinUptime = change.bulkDefaultMinUptime ?? undefined;
}

/** The scenario's events, applied once each as the simulated clock passes them. */
export class Timeline {
  readonly #pending: Array<{ atMs: number; change: WorldChange }>;

  constructor(
    scenario: Scenario,
    readonly startMs: number,
  ) {
    this.#pending = scenario.events
      .map(({ at, ...change }) => ({ atMs: toMs(at, startMs), change }))
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
