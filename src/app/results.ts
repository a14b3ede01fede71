import type { LoadedRule } from '../config/load.js';
import { nodeOfEntity } from '../inventory/name.js';
import type { RuleValidators } from '../inventory/select.js';

/** One line of `once --json` per (rule, inventory validator it watches). */
export interface ValidatorResult {
  type: 'result';
  rule: string;
  kind: string;
  validator: string;
  nodeId: string;
  labels: Record<string, string>;
  ok: boolean;
  /** The entity's state; for kinds keyed by more than the NodeID (`NodeID…:c-chain`, a delegation's tx), each entity's by key. */
  state?: unknown;
  failed?: string;
}

/** Whose entity this is: the validator whose key the entity is (or composes, `NodeID…:c-chain`), else the state's `nodeId` (L1 validations, delegations). */
function nodeOf(validators: RuleValidators, entity: string, state: unknown): string | undefined {
  const id = nodeOfEntity(validators, entity);
  if (id !== undefined) return id;
  const node = typeof state === 'object' && state !== null ? (state as { nodeId?: unknown }).nodeId : undefined;
  return typeof node === 'string' ? node : undefined;
}

/** The rule's committed results, by inventory validator. */
export function validatorResults(rule: LoadedRule, view: { states: ReadonlyMap<string, unknown>; failed: Readonly<Record<string, string>> }): ValidatorResult[] {
  const out: ValidatorResult[] = [];
  const validators = rule.validators ?? {};
  for (const v of Object.values(validators)) {
    const base = { type: 'result' as const, rule: rule.name, kind: rule.kind, validator: v.name, nodeId: v.nodeId, labels: v.labels };
    const failed = Object.entries(view.failed).find(([entity]) => nodeOf(validators, entity, undefined) === v.nodeId);
    if (failed) {
      out.push({ ...base, ok: false, failed: failed[1] });
      continue;
    }
    const mine = [...view.states].filter(([entity, state]) => nodeOf(validators, entity, state) === v.nodeId);
    const state = mine.length === 1 && mine[0]?.[0] === v.nodeId ? mine[0][1] : Object.fromEntries(mine);
    out.push({ ...base, ok: true, state });
  }
  return out;
}
