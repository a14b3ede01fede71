import { z } from 'zod';
import { httpUrl, labelName, name } from '../base/fields.js';
import { network, nodeId, type Network } from '../rules/fields.js';

/** Labels avawatch sets itself: an inventory label of that name would be overwritten or confuse routing. */
export const RESERVED_LABELS: readonly string[] = ['validator', 'network', 'node', 'rule', 'severity', 'alertname', 'scope'];

const inventoryLabels = z.record(
  labelName.superRefine((l, ctx) => {
    if (RESERVED_LABELS.includes(l)) ctx.addIssue({ code: 'custom', message: `"${l}" is set by avawatch itself (reserved: ${RESERVED_LABELS.join(', ')})` });
  }),
  z.string(),
);

const ids = z.array(z.string().min(1)).min(1);

/** One validator of the inventory: declared once, selected by rules (`validators: all` or by labels). */
export const validatorEntry = z.strictObject({
  nodeId,
  name,
  network: network.default('mainnet'),
  labels: inventoryLabels.default({}),
  /** Subnet ids the node validates besides the primary network. */
  subnets: ids.optional(),
  /** L1 validation ids (l1-validator-balance selects these). */
  validationIds: ids.optional(),
  rewardAddresses: ids.optional(),
  /** The node's own AvalancheGo API (http://host:9650). */
  api: httpUrl.optional(),
});
export type InventoryValidator = z.output<typeof validatorEntry>;

/** testnet and fuji are the same network. */
export function sameNetwork(a: Network, b: Network): boolean {
  const norm = (n: Network) => (n === 'testnet' ? 'fuji' : n);
  return norm(a) === norm(b);
}

export const inventory = z.array(validatorEntry).superRefine((list, ctx) => {
  const names = new Map<string, number>();
  const nodes = new Map<string, number>();
  list.forEach((v, i) => {
    const sameName = names.get(v.name);
    if (sameName === undefined) names.set(v.name, i);
    else ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `validator name "${v.name}" is already used by validators[${sameName}]` });
    const key = `${v.network === 'testnet' ? 'fuji' : v.network} ${v.nodeId}`;
    const sameNode = nodes.get(key);
    if (sameNode === undefined) nodes.set(key, i);
    else ctx.addIssue({ code: 'custom', path: [i, 'nodeId'], message: `${v.nodeId} is already listed on ${v.network} as validators[${sameNode}]` });
  });
});

/** A file `validatorsFile` names. */
export const inventoryFile = z.strictObject({ validators: inventory });
