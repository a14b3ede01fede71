import type { RuleValidators } from './select.js';
import type { InventoryValidator } from './schema.js';

/** What an alert and a condition share: the parts that name the validator. */
interface Named {
  subject: string;
  summary: string;
  labels: Record<string, string>;
  details: Record<string, string>;
  resolvedSummary?: string;
}

const NODE_ID = /^NodeID-[1-9A-HJ-NP-Za-km-z]+/;

/** The inventory validator an alert is about: its `node` label, else its subject (or the NodeID it starts with, `NodeID…:c-chain`). */
export function validatorOf(validators: RuleValidators | undefined, item: Pick<Named, 'subject' | 'labels'>): InventoryValidator | undefined {
  if (!validators) return undefined;
  for (const candidate of [item.labels['node'], item.labels['entity'], item.subject]) {
    const id = candidate === undefined ? undefined : NODE_ID.exec(candidate)?.[0];
    if (id !== undefined && Object.hasOwn(validators, id)) return validators[id];
  }
  return undefined;
}

/**
 * An alert about an inventory validator says which: labels `validator`, `network` and the inventory's
 * labels (below the kind's own, above the rule's: the caller puts rule labels first), the
 * NodeID in the summary as `alpha (NodeID-…)`, and a `Validator` detail.
 */
export function nameValidator<T extends Named>(validators: RuleValidators | undefined, item: T): T {
  const v = validatorOf(validators, item);
  if (!v) return item;
  const named = `${v.name} (${v.nodeId})`;
  const name = (text: string) => (text.includes(named) ? text : text.replace(v.nodeId, named));
  const out: T = {
    ...item,
    summary: name(item.summary),
    labels: { ...v.labels, validator: v.name, network: v.network === 'testnet' ? 'fuji' : v.network, ...item.labels },
    details: { Validator: v.name, ...item.details },
  };
  if (item.resolvedSummary !== undefined) out.resolvedSummary = name(item.resolvedSummary);
  return out;
}

/** A resolution's present, named as its alert is: the first inventory NodeID in the summary becomes `alpha (NodeID-…)`. */
export function nameResolution<T extends { summary: string }>(validators: RuleValidators | undefined, r: T | undefined): T | undefined {
  if (!validators || r === undefined) return r;
  for (const [id] of r.summary.matchAll(/NodeID-[1-9A-HJ-NP-Za-km-z]+/g)) {
    const v = Object.hasOwn(validators, id) ? validators[id] : undefined;
    if (!v) continue;
    const named = `${v.name} (${v.nodeId})`;
    const out = r.summary.includes(named) ? r : { ...r, summary: r.summary.replace(id, named) };
    // Figures read now carry the validator as the firing ones do: not said again as "of then".
    const details = (out as { details?: Record<string, string> }).details;
    return details ? { ...out, details: { Validator: v.name, ...details } } : out;
  }
  return r;
}
