import type { LoadedConfig } from '../config/load.js';
import { ruleKinds } from '../rules/registry.js';

/**
 * Labels alerts carry whatever their kind: `rule` and `severity` on every alert, `alertname`
 * and `entity` on rule-failing ones, `validator` on alerts about an inventory validator.
 */
export const COMMON_LABELS = ['rule', 'severity', 'alertname', 'entity', 'validator'] as const;

/**
 * Every label name an alert can carry with this config: the common ones, every kind's,
 * each rule's own `labels`, and the inventory's labels (when the config has `validators:`).
 * A silence on any other name would mute nothing.
 */
export function producibleLabels(loaded: Pick<LoadedConfig, 'config' | 'rules'>): string[] {
  const names = new Set<string>(COMMON_LABELS);
  for (const kind of Object.values(ruleKinds)) for (const n of kind.labelNames) names.add(n);
  for (const rule of loaded.rules) for (const n of Object.keys(rule.labels ?? {})) names.add(n);
  // Read defensively: the inventory's shape is the config's business, only its label names matter here.
  const inventory = (loaded.config as { validators?: unknown }).validators;
  if (Array.isArray(inventory)) {
    for (const v of inventory as unknown[]) {
      const labels = typeof v === 'object' && v !== null ? (v as { labels?: unknown }).labels : undefined;
      if (typeof labels === 'object' && labels !== null) for (const n of Object.keys(labels)) names.add(n);
    }
  }
  return [...names].sort();
}
