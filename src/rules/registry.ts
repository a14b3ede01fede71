import type { RuleKind } from './types.js';
import { delegationEnd } from './delegation-end/index.js';
import { exportKind } from './export/index.js';
import { icmPending } from './icm-pending/index.js';
import { l1ValidatorBalance } from './l1-validator-balance/index.js';
import { metricThreshold } from './metric-threshold/index.js';
import { validationEnd } from './validation-end/index.js';
import { validatorHealth } from './validator-health/index.js';
import { networkBaseline } from './network-baseline/index.js';
import { validatorStatus } from './validator-status/index.js';
import { blockProduction } from './block-production/index.js';
import { signatureAggregator } from './signature-aggregator/index.js';
import { stakingActivity } from './staking-activity/index.js';
import { subnetChanges } from './subnet-changes/index.js';
import { endpoint } from './endpoint/index.js';
import { addressActivity } from './address-activity/index.js';
import { nodeHealth } from './node-health/index.js';
import { nodeMetrics } from './node-metrics/index.js';
import { nodeUpgrade } from './node-upgrade/index.js';
import { l1Liveness } from './l1-liveness/index.js';

// The one list of rule kinds: the YAML schema, `check` and the engine all read it. Its order
// is the order of docs/rules.md, joined from each kind's README.md (registry.spec.ts).
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each kind checks its own types
export type AnyRuleKind = RuleKind<any, any, any>;

export const ruleKinds = {
  [validatorStatus.kind]: validatorStatus,
  [validationEnd.kind]: validationEnd,
  [validatorHealth.kind]: validatorHealth,
  [networkBaseline.kind]: networkBaseline,
  [nodeHealth.kind]: nodeHealth,
  [l1ValidatorBalance.kind]: l1ValidatorBalance,
  [metricThreshold.kind]: metricThreshold,
  [nodeMetrics.kind]: nodeMetrics,
  [nodeUpgrade.kind]: nodeUpgrade,
  [delegationEnd.kind]: delegationEnd,
  [icmPending.kind]: icmPending,
  [exportKind.kind]: exportKind,
  [blockProduction.kind]: blockProduction,
  [signatureAggregator.kind]: signatureAggregator,
  [stakingActivity.kind]: stakingActivity,
  [subnetChanges.kind]: subnetChanges,
  [endpoint.kind]: endpoint,
  [addressActivity.kind]: addressActivity,
  [l1Liveness.kind]: l1Liveness,
} satisfies Record<string, AnyRuleKind>;

export function ruleKind(kind: string): AnyRuleKind {
  const found = (ruleKinds as Record<string, AnyRuleKind>)[kind];
  if (!found) throw new Error(`unknown rule kind "${kind}"`);
  return found;
}
