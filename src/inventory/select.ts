import { NETWORKS, type Network } from '../rules/fields.js';
import type { AnyRuleKind } from '../rules/registry.js';
import type { InventoryKey } from '../rules/types.js';
import type { ConfigPath, ConfigProblem } from '../base/source.js';
import { sameNetwork, type InventoryValidator } from './schema.js';

/** The inventory validators a rule is about, by NodeID: the ones its alerts are named after. */
export type RuleValidators = Readonly<Record<string, InventoryValidator>>;

export interface Resolved {
  /** The rule with `validators:` turned into the keys its kind fills; undefined: do not parse it. */
  raw: unknown;
  validators: RuleValidators;
  problems: ConfigProblem[];
  /** `validators: all` over an inventory with none on the rule's network: the rule watches nothing and is left out. */
  idle?: boolean;
  /** Why it is idle: no validator on the network, or none that declares its node's `api`. */
  idleWhy?: 'api';
}

const VALUES: Record<Exclude<InventoryKey, 'urls' | 'nodeApis' | 'subnets'>, (v: InventoryValidator) => readonly string[]> = {
  nodeIds: (v) => [v.nodeId],
  validationIds: (v) => v.validationIds ?? [],
  rewardAddresses: (v) => v.rewardAddresses ?? [],
};

/**
 * Resolves a rule's `validators:` (all, or labels every selected validator has) before the
 * kind's own parse, so a kind whose `nodeIds` is required still parses. `inventory` is
 * undefined when the config itself did not parse: a rule that selects is then left out
 * (its problems would only echo the config's).
 */
export function resolveSelector(raw: unknown, kind: AnyRuleKind | undefined, inventory: readonly InventoryValidator[] | undefined, locate: (path: ConfigPath, message: string) => ConfigProblem): Resolved {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { raw, validators: {}, problems: [] };
  const rule = { ...(raw as Record<string, unknown>) };
  let network = networkOf(rule['network']);
  const selector = rule['validators'];
  delete rule['validators'];
  const named = (ids: readonly string[]) => byNode((inventory ?? []).filter((v) => sameNetwork(v.network, network) && ids.includes(v.nodeId)));
  if (selector === undefined) return { raw, validators: named(strings(rule['nodeIds'])), problems: [] };
  if (!kind) return { raw: rule, validators: {}, problems: [] };
  if (!kind.selects) {
    return { raw: rule, validators: {}, problems: [locate(['validators'], `kind ${kind.kind} is not about validators: it takes no "validators" selector`)] };
  }
  if (!inventory) return { raw: undefined, validators: {}, problems: [] };
  const match = matcher(selector);
  if (typeof match === 'string') return { raw: rule, validators: {}, problems: [locate(['validators'], match)] };
  // No network on the rule: the selected validators' own (splitByNetwork made one part per network).
  if (rule['network'] === undefined) {
    const networks = networksOf(inventory.filter((v) => match(v) && watchable(kind, v)));
    if (networks.length > 1) {
      const own = kind.selects.filter((key) => ownValues(rule, key)).join(', ');
      return { raw: undefined, validators: {}, problems: [locate(['validators'], `the selected validators are on ${networks.join(' and ')}, and the rule names ${own} of its own, which could be on either: set network: on this rule (and copy it for the other)`)] };
    }
    rule['network'] = networks[0] ?? 'mainnet';
    network = rule['network'] as Network;
  }
  const onNetwork = inventory.filter((v) => sameNetwork(v.network, network));
  // The shipped profile before the operator lists a validator: nothing to watch, not a mistake.
  if (selector === 'all' && onNetwork.length === 0 && kind.selects.every((k) => !ownValues(rule, k))) return { raw: undefined, validators: {}, problems: [], idle: true };
  // A node-API rule of the profile before any validator declares its API: nothing to read yet.
  if (selector === 'all' && kind.selects.includes('urls') && rule['urls'] === undefined && onNetwork.every((v) => v.api === undefined)) {
    return { raw: undefined, validators: {}, problems: [], idle: true, idleWhy: 'api' };
  }
  const selected = onNetwork.filter(match);
  if (selected.length === 0) return { raw: rule, validators: {}, problems: [locate(['validators'], nothingSelected(selector, network, onNetwork))] };
  const problems: ConfigProblem[] = [];
  for (const key of kind.selects) {
    const explicit = rule[key];
    if (key === 'subnets') {
      // Asked for only: NodeID → the subnets the inventory says it validates (none: []).
      if (explicit === FROM_INVENTORY) rule[key] = Object.fromEntries(selected.map((v) => [v.nodeId, v.subnets ?? []]));
      continue;
    }
    if (key === 'nodeApis') {
      // Where declared only: none is fine (the kind reads the service alone then).
      if (explicit !== undefined && (explicit === null || typeof explicit !== 'object' || Array.isArray(explicit))) continue;
      const apis = { ...Object.fromEntries(selected.flatMap((v) => (v.api === undefined ? [] : [[v.nodeId, v.api]]))), ...(explicit as Record<string, unknown> | undefined) };
      if (Object.keys(apis).length > 0) rule[key] = apis;
      continue;
    }
    if (key === 'urls') {
      // NodeID → the node's own API: only validators that declare `api` have one to read.
      if (explicit !== undefined && (explicit === null || typeof explicit !== 'object' || Array.isArray(explicit))) continue;
      // A URL the rule names itself wins over the inventory's.
      const urls = { ...Object.fromEntries(selected.flatMap((v) => (v.api === undefined ? [] : [[v.nodeId, v.api]]))), ...(explicit as Record<string, unknown> | undefined) };
      if (Object.keys(urls).length === 0) {
        problems.push(locate(['validators'], `the selected validators (${selected.map((v) => v.name).join(', ')}) declare no api URL in the inventory (api: http://127.0.0.1:9650)`));
        continue;
      }
      rule[key] = urls;
      continue;
    }
    if (explicit !== undefined && !Array.isArray(explicit)) continue; // the kind's parse says what is wrong
    const values = [...new Set([...strings(explicit), ...selected.flatMap(VALUES[key])])];
    if (values.length === 0) {
      problems.push(locate(['validators'], `the selected validators (${selected.map((v) => v.name).join(', ')}) list no ${key} in the inventory`));
      continue;
    }
    rule[key] = values;
  }
  // A kind that fills no key from them (network-baseline) watches none of them: it only takes their networks.
  return { raw: rule, validators: { ...named(strings(rule['nodeIds'])), ...(kind.selects.length > 0 ? byNode(selected) : {}) }, problems };
}

/** One part of a rule: the rule itself, or its copy for one network. */
export interface RulePart {
  raw: unknown;
  /** Added to the rule's name: '' for the rule as written and its mainnet part, '@fuji' for its Fuji part. */
  suffix: string;
  network?: 'mainnet' | 'fuji';
}

/**
 * A rule that selects without `network:` watches each selected validator on its own network:
 * over validators on both, one part per network. The mainnet part keeps the rule's name (its
 * alerts, state and silences are keyed by it), the Fuji part is `<name>@fuji`; a rule whose
 * validators are on one network is left as it is, whichever network that is.
 */
export function splitByNetwork(raw: unknown, kind: AnyRuleKind | undefined, inventory: readonly InventoryValidator[] | undefined): RulePart[] {
  const whole = [{ raw, suffix: '' }];
  if (!kind?.selects || !inventory || raw === null || typeof raw !== 'object' || Array.isArray(raw)) return whole;
  const rule = raw as Record<string, unknown>;
  if (rule['network'] !== undefined || rule['validators'] === undefined) return whole;
  // IDs the rule names itself carry no network: such a rule is not split (resolveSelector says why).
  if (kind.selects.some((key) => ownValues(rule, key))) return whole;
  const match = matcher(rule['validators']);
  if (typeof match === 'string') return whole;
  const networks = networksOf(inventory.filter((v) => match(v) && watchable(kind, v)));
  if (networks.length < 2) return whole;
  return networks.map((network) => ({ raw: { ...rule, network }, suffix: network === 'mainnet' ? '' : `@${network}`, network }));
}

/** `subnets: from-inventory`: the selected validators' own subnets, per NodeID. */
export const FROM_INVENTORY = 'from-inventory';

/** Whether the rule names this key's values itself (IDs of no network), not asking the inventory for them. */
function ownValues(rule: Record<string, unknown>, key: InventoryKey): boolean {
  return rule[key] !== undefined && rule[key] !== FROM_INVENTORY;
}

/** Whether the kind has something to watch of the validator: l1-validator-balance only those that list validationIds. */
function watchable(kind: AnyRuleKind, v: InventoryValidator): boolean {
  const keys = (kind.selects ?? []).filter((k): k is keyof typeof VALUES => k in VALUES);
  return keys.length === 0 || keys.some((k) => VALUES[k](v).length > 0);
}

/** The networks of these validators, mainnet first (testnet is fuji). */
function networksOf(list: readonly InventoryValidator[]): Array<'mainnet' | 'fuji'> {
  const has = (n: 'mainnet' | 'fuji') => list.some((v) => sameNetwork(v.network, n));
  return (['mainnet', 'fuji'] as const).filter(has);
}

/** A predicate for `all` or `{label: value, …}` (`name` picks one validator), or why the selector is wrong. */
function matcher(selector: unknown): ((v: InventoryValidator) => boolean) | string {
  if (selector === 'all') return () => true;
  const wrong = 'expected "all" or labels every selected validator has, e.g. {team: infra} (or {name: alpha})';
  if (selector === null || typeof selector !== 'object' || Array.isArray(selector)) return wrong;
  const wanted = Object.entries(selector as Record<string, unknown>);
  if (wanted.length === 0 || wanted.some(([, value]) => typeof value !== 'string')) return wrong;
  return (v) => wanted.every(([label, value]) => (label === 'name' ? v.name : v.labels[label]) === value);
}

function nothingSelected(selector: unknown, network: Network, onNetwork: readonly InventoryValidator[]): string {
  if (onNetwork.length === 0) return `the inventory lists no validator on ${network}`;
  const labels = [...new Set(onNetwork.flatMap((v) => Object.entries(v.labels).map(([k, value]) => `${k}=${value}`)))].sort();
  const shown = labels.length > 20 ? [...labels.slice(0, 20), '…'] : labels;
  return `${JSON.stringify(selector)} selects no validator on ${network}; labels in the inventory: ${shown.join(', ') || '(none)'}; names: ${onNetwork.map((v) => v.name).slice(0, 20).join(', ')}`;
}

function networkOf(value: unknown): Network {
  return (NETWORKS as readonly unknown[]).includes(value) ? (value as Network) : 'mainnet';
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function byNode(list: readonly InventoryValidator[]): Record<string, InventoryValidator> {
  return Object.fromEntries(list.map((v) => [v.nodeId, v]));
}
