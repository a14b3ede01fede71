import { SEVERITIES } from '../base/types.js';
import type { LoadedConfig } from '../config/load.js';
import { NETWORKS } from '../rules/fields.js';
import { ruleKinds } from '../rules/registry.js';

/**
 * Labels alerts carry whatever their kind: `rule` and `severity` on every alert, `alertname`
 * and `entity` on rule-failing ones, `validator` and `network` on alerts about an inventory validator;
 * `source`, `api` and `node_api` on avawatch's alert of rules failing for one cause (engine/cause.ts);
 * `scope` on alerts about a validator and on incidents, `group` and `family` on incidents (issue 40).
 */
export const COMMON_LABELS = ['rule', 'severity', 'alertname', 'entity', 'validator', 'network', 'source', 'api', 'node_api', 'scope', 'group', 'family'] as const;
/** An alert's `scope`: the incident it is part of, or the validator alone. */
export const SCOPES = ['network', 'group', 'validator'] as const;

/** The `rule` label of avawatch's alert of rules failing for one cause (engine/cause.ts): its own, not one rule's. */
export const CAUSE_RULE = 'avawatch';
/** That alert's `source` values, and the `api` values of a budget cause: a silence on another would mute nothing. */
export const CAUSE_SOURCES = ['data-service', 'metrics-api', 'budget', 'node-api'] as const;
export const CAUSE_APIS = ['data', 'metrics'] as const;

type Loaded = Pick<LoadedConfig, 'rules' | 'inventory'>;

/**
 * Every label name an alert can carry with this config: the common ones, every kind's,
 * each rule's own `labels`, and the inventory's labels (`validators:` or `validatorsFile`).
 * A silence on any other name would mute nothing.
 */
export function producibleLabels(loaded: Loaded): string[] {
  const names = new Set<string>(COMMON_LABELS);
  for (const kind of Object.values(ruleKinds)) for (const n of kind.labelNames) names.add(n);
  for (const rule of loaded.rules) for (const n of Object.keys(rule.labels ?? {})) names.add(n);
  for (const v of loaded.inventory) for (const n of Object.keys(v.labels)) names.add(n);
  return [...names].sort();
}

/**
 * The values a label can take with this config, for the labels whose values the config fixes:
 * `rule` (the rules' names), `severity`, `network`, `validator` (the inventory's names), and a
 * label only the inventory or rules' own `labels` set (`team`). Undefined for an open one
 * (`node`, `address`: whatever the chain says) and for a fixed one nothing sets yet.
 */
export function producibleValues(loaded: Loaded, label: string): string[] | undefined {
  const fixed: Record<string, readonly string[]> = {
    rule: [...loaded.rules.map((r) => r.name), CAUSE_RULE],
    severity: SEVERITIES,
    network: NETWORKS,
    validator: loaded.inventory.map((v) => v.name),
    source: CAUSE_SOURCES,
    api: CAUSE_APIS,
    scope: SCOPES,
  };
  // A kind may set it from what it reads, and a rule-failing alert its `alertname` and `entity`.
  if (fixed[label] === undefined && ((COMMON_LABELS as readonly string[]).includes(label) || Object.values(ruleKinds).some((k) => k.labelNames.includes(label)))) return undefined;
  // Rules' and the inventory's own labels may name one a kind does not set (`network` on a node-metrics alert).
  const own = [...loaded.rules.map((r) => r.labels?.[label]), ...loaded.inventory.map((v) => v.labels[label])].filter((x) => x !== undefined);
  const values = [...new Set([...(fixed[label] ?? []), ...own])];
  return values.length === 0 ? undefined : values;
}
