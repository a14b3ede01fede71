import type { LoadedConfig } from '../config/load.js';
import { ruleKinds } from '../rules/registry.js';

/**
 * Labels alerts carry whatever their kind: `rule` and `severity` on every alert, `alertname`
 * and `entity` on rule-failing ones, `validator` on alerts about an inventory validator;
 * `source`, `api` and `node_api` on avawatch's alert of rules failing for one cause (engine/cause.ts).
 */
export const COMMON_LABELS = ['rule', 'severity', 'alertname', 'entity', 'validator', 'source', 'api', 'node_api'] as const;

/**
 * Every label name an alert can carry with this config: the common ones, every kind's,
 * each rule's own `labels`, and the inventory's labels (`validators:` or `validatorsFile`).
 * A silence on any other name would mute nothing.
 */
export function producibleLabels(loaded: Pick<LoadedConfig, 'rules' | 'inventory'>): string[] {
  const names = new Set<string>(COMMON_LABELS);
  for (const kind of Object.values(ruleKinds)) for (const n of kind.labelNames) names.add(n);
  for (const rule of loaded.rules) for (const n of Object.keys(rule.labels ?? {})) names.add(n);
  for (const v of loaded.inventory) for (const n of Object.keys(v.labels)) names.add(n);
  return [...names].sort();
}
