import { apiCall } from '../../api/catalog.js';
import { record } from '../../base/record.js';
import { keepFailed } from '../lookup.js';
import type { AlertDraft, Evaluation, GaugeSample, RuleKind } from '../types.js';
import { isoSeconds } from '../format.js';
import { listSubnets, type Subnet } from './read.js';
import { spec, state, type Blockchain, type Facts, type Owners, type Spec, type State } from './schema.js';

export interface Observation {
  /** The watched subnets the list held. */
  subnets: Record<string, Facts>;
  /** Watched subnets absent from a complete list. */
  absent: string[];
  /** Watched subnets not found in a list cut off by api.maxPages, with why: they keep what held. */
  failed: Record<string, string>;
}

export const subnetChanges: RuleKind<Spec, Observation, State> = {
  kind: 'subnet-changes',
  keyDetails: ['After'],
  labelNames: ['network', 'subnet_id', 'change', 'blockchain_id'],
  spec: spec as unknown as RuleKind<Spec, Observation, State>['spec'],
  state,
  gauges: [
    { name: 'avawatch_subnet_listed', help: '1 when the last complete subnet list held the watched subnet, else 0.', labelNames: ['rule', 'network', 'subnet_id'] },
    { name: 'avawatch_subnet_is_l1', help: '1 when the watched subnet is an L1 (converted), else 0.', labelNames: ['rule', 'network', 'subnet_id'] },
    { name: 'avawatch_subnet_blockchains', help: 'Blockchains the watched subnet has.', labelNames: ['rule', 'network', 'subnet_id'] },
  ],

  async observe(s, { data, signal }) {
    const wanted = new Set(s.subnetIds);
    const found = new Set<string>();
    // A failed page fails the whole read (it throws): a list never read whole proves no absence.
    const { items: subnets, complete } = await listSubnets(
      data.primary,
      s.network,
      {
        pageSize: s.pageSize,
        enough: (page) => {
          for (const x of page) if (wanted.has(x.subnetId)) found.add(x.subnetId);
          return found.size === wanted.size;
        },
      },
      signal,
    );
    const out: Observation = { subnets: record(), absent: [], failed: record() };
    // The first entry of a subnet wins, should the service list one twice.
    for (const x of subnets) if (wanted.has(x.subnetId) && !out.subnets[x.subnetId]) out.subnets[x.subnetId] = factsOf(x);
    for (const id of s.subnetIds) {
      if (out.subnets[id]) continue;
      if (complete) out.absent.push(id);
      else out.failed[id] = `not in the first ${data.primary.options.maxPages} pages of the subnet list (${s.pageSize.toLocaleString('en-US')} a page): raise api.maxPages`;
    }
    return out;
  },

  evaluate(previous, observation, _now, s) {
    const result: Evaluation<State> = { states: new Map(), alerts: [] };
    for (const id of s.subnetIds) {
      const before = previous.get(id);
      const why = observation.failed[id];
      if (why !== undefined) {
        keepFailed(result, id, before, why);
        continue;
      }
      const seen = observation.subnets[id];
      if (seen) {
        // A subnet seen before is compared; a first sighting is its baseline.
        if (before?.subnet) result.alerts.push(...changes(id, before.subnet, seen, s));
        result.states.set(id, { listed: true, subnet: before?.subnet ? merge(before.subnet, seen) : seen });
      } else if (observation.absent.includes(id)) {
        if (!before || before.listed) result.alerts.push(notListed(id, before, s));
        result.states.set(id, { listed: false, ...(before?.subnet ? { subnet: before.subnet } : {}) });
      } else if (before) result.states.set(id, before);
    }
    return result;
  },

  samples(s, states) {
    const out: GaugeSample[] = [];
    for (const id of s.subnetIds) {
      const st = states.get(id);
      if (!st) continue;
      const labels = { network: s.network, subnet_id: id };
      out.push({ metric: 'avawatch_subnet_listed', labels, value: st.listed ? 1 : 0 });
      if (st.subnet?.isL1 !== undefined) out.push({ metric: 'avawatch_subnet_is_l1', labels, value: st.subnet.isL1 ? 1 : 0 });
      if (st.subnet?.blockchains) out.push({ metric: 'avawatch_subnet_blockchains', labels, value: st.subnet.blockchains.length });
    }
    return out;
  },

  describe: (s) => `${s.network}, ${s.subnetIds.length} subnet(s), the subnet list ${s.pageSize.toLocaleString('en-US')} a page`,
  cost: (s) => ({
    calls: [apiCall('GET', `/v1/networks/${s.network}/subnets`, { pageSize: String(s.pageSize), sortOrder: 'desc' })],
    more: `one more page (20 CU) per further ${s.pageSize.toLocaleString('en-US')} subnets on the network, newest first, until every watched subnet is found; a missing one reads the whole list`,
  }),
};

/** What the rule keeps of a listed subnet; the deprecated owner fields stand in for subnetOwnershipInfo. */
export function factsOf(x: Subnet): Facts {
  const info = x.subnetOwnershipInfo ?? (x.ownerAddresses && x.threshold !== undefined && x.locktime !== undefined ? { addresses: x.ownerAddresses, threshold: x.threshold, locktime: x.locktime } : undefined);
  const f: Facts = {};
  if (x.isL1 !== undefined) f.isL1 = x.isL1;
  if (x.l1ConversionTransactionHash !== undefined) f.conversionTx = x.l1ConversionTransactionHash;
  if (info) f.owners = { addresses: [...new Set(info.addresses.map((a) => a.replace(/^[PX]-/, '')))].sort(), threshold: info.threshold, locktime: info.locktime };
  if (x.l1ValidatorManagerDetails) f.manager = { blockchainId: x.l1ValidatorManagerDetails.blockchainId, contractAddress: x.l1ValidatorManagerDetails.contractAddress };
  if (x.blockchains) {
    f.blockchains = x.blockchains.map((b) => ({ id: b.blockchainId, name: b.blockchainName, vmId: b.vmId, ...(b.evmChainId !== undefined ? { evmChainId: b.evmChainId } : {}) }));
  }
  return f;
}

/** What was seen over what held: a field absent this time (another shape) keeps its value. */
function merge(before: Facts, seen: Facts): Facts {
  const out: Facts = { ...before };
  for (const [k, v] of Object.entries(seen)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

function changes(id: string, before: Facts, seen: Facts, s: Spec): AlertDraft[] {
  const out: AlertDraft[] = [];
  const event = (change: string, summary: string, details: Record<string, string>, labels: Record<string, string> = {}): AlertDraft => ({
    status: 'event',
    // Owners, threshold, L1 conversion: news to see; a rule that pages on them sets severities.neutral.
    news: 'neutral',
    subject: id,
    summary,
    labels: { network: s.network, subnet_id: id, change, ...labels },
    details: { Subnet: id, Network: s.network, ...details },
  });
  if (before.owners && seen.owners && ownersText(before.owners) !== ownersText(seen.owners)) {
    const [b, a] = [ownersText(before.owners), ownersText(seen.owners)];
    out.push(event('ownership', `Subnet ${id} ownership changed: ${b} → ${a}`, { Before: b, After: a }));
  }
  let converted = false;
  if (before.isL1 !== undefined && seen.isL1 !== undefined && before.isL1 !== seen.isL1) {
    converted = seen.isL1;
    const tx = seen.conversionTx ?? before.conversionTx;
    const by = converted ? (tx ? ` by ${tx}` : ' (no conversion transaction listed)') : '';
    const summary = converted ? `Subnet ${id} was converted to an L1 (isL1 false → true)${by}` : `Subnet ${id} is no longer listed as an L1 (isL1 true → false)`;
    const manager = seen.manager ?? before.manager;
    out.push(
      event(converted ? 'l1-conversion' : 'l1-status', summary, {
        Before: `isL1 ${before.isL1}`,
        After: `isL1 ${seen.isL1}`,
        ...(tx ? { 'Conversion transaction': tx } : {}),
        ...(manager ? { 'Validator manager': managerText(manager) } : {}),
      }),
    );
  }
  // A manager that comes with the conversion is told in the conversion's event.
  if (seen.manager && managerKey(seen.manager) !== (before.manager ? managerKey(before.manager) : undefined) && !(converted && !before.manager)) {
    const [b, a] = [before.manager ? managerText(before.manager) : 'none', managerText(seen.manager)];
    out.push(event('validator-manager', `Subnet ${id} validator manager changed: ${b} → ${a}`, { Before: b, After: a }));
  }
  if (before.blockchains && seen.blockchains) {
    const had = new Set(before.blockchains.map((b) => b.id));
    for (const chain of seen.blockchains.filter((b) => !had.has(b.id))) {
      const count = `${before.blockchains.length} → ${seen.blockchains.length}`;
      out.push(
        event('blockchain-added', `Subnet ${id} has a new blockchain "${chain.name}" (${chainText(chain)}): blockchains ${count}`, { Blockchain: chain.id, Name: chain.name, VM: chain.vmId, ...(chain.evmChainId !== undefined ? { 'EVM chain id': String(chain.evmChainId) } : {}), Blockchains: count }, {
          blockchain_id: chain.id,
        }),
      );
    }
  }
  return out;
}

function notListed(id: string, before: State | undefined, s: Spec): AlertDraft {
  const was = before?.subnet ? ' (it was listed before)' : '';
  return {
    status: 'event',
    severity: 'warning',
    news: 'bad',
    subject: id,
    summary: `Subnet ${id} is not listed: absent from the complete subnet list of ${s.network}${was}`,
    labels: { network: s.network, subnet_id: id, change: 'not-listed' },
    details: { Subnet: id, Network: s.network, Before: before?.subnet ? 'listed' : 'never seen', After: 'not listed' },
  };
}

function ownersText(o: Owners): string {
  const lock = o.locktime > 0 ? `, locked until ${isoSeconds(o.locktime)}` : '';
  return `${o.threshold} of [${o.addresses.join(', ')}]${lock}`;
}

function managerText(m: { blockchainId: string; contractAddress: string }): string {
  return `${m.contractAddress} on ${m.blockchainId}`;
}

/** EVM addresses are hex: 0xAbC… and 0xabc… are one address (checksum casing is no change). */
function managerKey(m: { blockchainId: string; contractAddress: string }): string {
  const address = /^0x[0-9a-fA-F]+$/.test(m.contractAddress) ? m.contractAddress.toLowerCase() : m.contractAddress;
  return `${address} on ${m.blockchainId}`;
}

function chainText(b: Blockchain): string {
  return [b.id, `VM ${b.vmId}`, ...(b.evmChainId !== undefined ? [`EVM chain id ${b.evmChainId}`] : [])].join(', ');
}
