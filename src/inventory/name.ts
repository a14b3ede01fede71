import type { RuleValidators } from './select.js';
import type { InventoryValidator } from './schema.js';

// A condition or event about an inventory validator carries its key, the exact NodeID, in
// its `node` label (every kind that watches validators sets it). The validator is found by
// that key, never by reading a NodeID out of text: a summary or an entity that names
// another node names no validator.

/** What an alert and a condition share: the parts that name the validator. */
interface Named {
  subject: string;
  summary: string;
  labels: Record<string, string>;
  details: Record<string, string>;
  resolvedSummary?: string;
}

/** The inventory validator an alert or condition is about: the one its `node` label is the key of. */
export function validatorOf(validators: RuleValidators | undefined, item: Pick<Named, 'labels'>): InventoryValidator | undefined {
  const id = item.labels['node'];
  if (!validators || id === undefined || !Object.hasOwn(validators, id)) return undefined;
  return validators[id];
}

/**
 * The NodeID a kind's entity key belongs to: the key itself, or the `NodeID…:<part>` keys a
 * kind composes (block-production's `NodeID…:c-chain`, validator-health's `NodeID…:p-chain`).
 */
export function nodeOfEntity(validators: RuleValidators | undefined, entity: string): string | undefined {
  if (!validators) return undefined;
  if (Object.hasOwn(validators, entity)) return entity;
  const colon = entity.indexOf(':');
  const head = colon < 0 ? undefined : entity.slice(0, colon);
  return head !== undefined && Object.hasOwn(validators, head) ? head : undefined;
}

/** "alpha (NodeID-…)" in place of the validator's NodeID in the text (once; a text that names it so already is left). */
function nameIn(text: string, v: Pick<InventoryValidator, 'name' | 'nodeId'>): string {
  const named = `${v.name} (${v.nodeId})`;
  return text.includes(named) ? text : text.replace(v.nodeId, named);
}

/**
 * An alert about an inventory validator says which: labels `validator`, `network` and the inventory's
 * labels (below the kind's own, above the rule's: the caller puts rule labels first), the
 * NodeID in the summary as `alpha (NodeID-…)`, and a `Validator` detail.
 */
export function nameValidator<T extends Named>(validators: RuleValidators | undefined, item: T): T {
  const v = validatorOf(validators, item);
  if (!v) return item;
  const out: T = {
    ...item,
    summary: nameIn(item.summary, v),
    labels: { ...v.labels, validator: v.name, network: v.network === 'testnet' ? 'fuji' : v.network, ...item.labels },
    details: { Validator: v.name, ...item.details },
  };
  if (item.resolvedSummary !== undefined) out.resolvedSummary = nameIn(item.resolvedSummary, v);
  return out;
}

/** A present named after a validator: its summary says `alpha (NodeID-…)`, its details start with `Validator`. */
export function namePresent<T extends { summary: string; details?: Record<string, string> }>(r: T, v: Pick<InventoryValidator, 'name' | 'nodeId'> | undefined): T {
  if (!v) return r;
  const out = { ...r, summary: nameIn(r.summary, v) };
  // Figures read now carry the validator as the firing ones do: not said again as "of then".
  return r.details ? { ...out, details: { Validator: v.name, ...r.details } } : out;
}

/**
 * A resolution's present, named as the condition it resolves (`about`) is: by that
 * condition's `node` label. Without `about` the present is returned as it is: the lifecycle
 * names it from the condition it resolves (see `whoResolves`), never from its text.
 */
export function nameResolution<T extends { summary: string }>(validators: RuleValidators | undefined, r: T | undefined, about?: Pick<Named, 'labels'>): T | undefined {
  if (r === undefined || about === undefined) return r;
  return namePresent(r as T & { details?: Record<string, string> }, validatorOf(validators, about));
}

/**
 * The validator a stored condition was named after (by `nameValidator`): its `node` key and
 * the name it fired with (`validator` label and `Validator` detail agree), else undefined (a
 * rule's own `validator` label names nothing).
 */
export function whoResolves(c: Pick<Named, 'labels' | 'details'>): Pick<InventoryValidator, 'name' | 'nodeId'> | undefined {
  const [nodeId, name] = [c.labels['node'], c.labels['validator']];
  if (nodeId === undefined || name === undefined || c.details['Validator'] !== name) return undefined;
  return { name, nodeId };
}
