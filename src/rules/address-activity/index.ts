import { apiCall } from '../../api/catalog.js';
import type { BlockRangeQuery, Evm } from '../../api/data/evm.js';
import { record } from '../../base/record.js';
import { isFailed, keepFailed, lookupEach, type Outcome } from '../lookup.js';
import type { AlertDraft, Evaluation, GaugeSample, RuleKind } from '../types.js';
import { fromErc20, fromInternals, fromTransactions } from './activity.js';
import { activityAlert, nativeSymbol, skippedAlert } from './alerts.js';
import { advance, baseline, readQuery, type Read } from './cursor.js';
import { spec, state, type List, type Spec, type State } from './schema.js';

export interface Observation {
  /** Per list of an address (`chainId/address/list`): what the read found, or why it failed. */
  reads: Record<string, Outcome<Read>>;
}

const LOOKUP_CONCURRENCY = 2;
const SUFFIX: Record<List, string> = { native: '', erc20: ':listErc20', internal: ':listInternals' };

export const addressActivity: RuleKind<Spec, Observation, State> = {
  kind: 'address-activity',
  keyDetails: ['Amount', 'Token'],
  labelNames: ['chain_id', 'address', 'direction', 'list', 'token', 'tx_hash', 'block'],
  spec: spec as unknown as RuleKind<Spec, Observation, State>['spec'],
  state,
  gauges: [
    {
      name: 'avawatch_evm_address_last_activity_timestamp_seconds',
      help: 'Block time of the newest transaction or transfer seen for a watched EVM address, in any list read.',
      labelNames: ['rule', 'chain_id', 'address'],
    },
    { name: 'avawatch_evm_address_newest_block', help: 'Newest block in which a watched EVM address was seen active.', labelNames: ['rule', 'chain_id', 'address'] },
    {
      name: 'avawatch_evm_address_lists_behind',
      help: 'Lists of a watched EVM address whose last read stopped at maxPages: more activity waits for the next poll.',
      labelNames: ['rule', 'chain_id', 'address'],
    },
  ],

  async observe(s, { data, signal, previous }) {
    const prev = previous as ReadonlyMap<string, State>;
    // Each list of each address is its own lookup: one that fails keeps its cursor and blinds no other.
    const reads = await lookupEach(entitiesOf(s), LOOKUP_CONCURRENCY, signal, (entity) => {
      const { address, list } = parseEntity(entity);
      return readList(data.evm, s.chainId, address, list, readQuery(prev.get(entity), list, s.maxPages), signal);
    });
    return { reads };
  },

  evaluate(previous, observation, _now, s) {
    const result: Evaluation<State> = { states: new Map(), alerts: [], failed: record() };
    const fresh: Array<{ block: number; alert: AlertDraft }> = [];
    for (const entity of entitiesOf(s)) {
      const { address, list } = parseEntity(entity);
      const read = observation.reads[entity];
      const before = previous.get(entity);
      if (read === undefined || isFailed(read)) {
        keepFailed(result, entity, before, read?.failed ?? 'not read');
        continue;
      }
      if (!before) {
        result.states.set(entity, baseline(address, list, read));
        continue;
      }
      const next = advance(before, read);
      result.states.set(entity, next.state);
      for (const a of next.fresh) {
        const alert = activityAlert(a, address, s);
        if (alert) fresh.push({ block: a.block, alert });
      }
      if (next.skipped !== undefined) fresh.push({ block: next.skipped, alert: skippedAlert(address, list, next.skipped, s) });
    }
    // Oldest first across lists and addresses; a stable sort keeps each list's own order.
    result.alerts = fresh.sort((a, b) => a.block - b.block).map((f) => f.alert);
    return result;
  },

  samples(s, states) {
    const out: GaugeSample[] = [];
    for (const address of s.addresses) {
      const lists = s.lists.map((list) => states.get(entityKey(s.chainId, address, list))).filter((st): st is State => st !== undefined);
      if (lists.length === 0) continue;
      const labels = { chain_id: s.chainId, address };
      const newestBlock = Math.max(...lists.map((st) => st.lastBlock ?? -1));
      const lastActivity = Math.max(...lists.map((st) => st.lastTimestamp ?? -1));
      if (lastActivity >= 0) out.push({ metric: 'avawatch_evm_address_last_activity_timestamp_seconds', labels, value: lastActivity });
      if (newestBlock >= 0) out.push({ metric: 'avawatch_evm_address_newest_block', labels, value: newestBlock });
      out.push({ metric: 'avawatch_evm_address_lists_behind', labels, value: lists.filter((st) => st.behind).length });
    }
    return out;
  },

  describe: (s) =>
    [
      `chain ${s.chainId}`,
      `${s.addresses.length} address(es)`,
      s.lists.join(' + '),
      s.directions.length < 3 ? s.directions.join('/') : '',
      s.tokens ? `${s.tokens.length} token(s)` : '',
      s.minValue ? `minimum ${Object.entries(s.minValue).map(([t, v]) => `${v} ${t === 'native' ? nativeSymbol(s) : t}`).join(', ')}` : '',
    ]
      .filter(Boolean)
      .join(', '),
  cost: (s) => ({
    // One call per list and address each poll (20 CU each); sortOrder only where the list takes it.
    calls: s.addresses.flatMap((a) => s.lists.map((list) => apiCall('GET', `/v1/chains/${s.chainId}/addresses/${a}/transactions${SUFFIX[list]}`, list === 'native' ? { sortOrder: 'asc' } : {}))),
    more: `up to ${s.maxPages} pages per list while more new activity waits`,
  }),
};

/** Entities are `chainId/address/list`: a cursor belongs to its chain, so a changed chainId starts afresh. */
function entitiesOf(s: Spec): string[] {
  return s.addresses.flatMap((a) => s.lists.map((list) => entityKey(s.chainId, a, list)));
}

function entityKey(chainId: string, address: string, list: List): string {
  return `${chainId}/${address}/${list}`;
}

function parseEntity(entity: string): { address: string; list: List } {
  const [, address, list] = entity.split('/');
  return { address: address as string, list: list as List };
}

async function readList(evm: Evm, chainId: string, address: string, list: List, q: BlockRangeQuery, signal: AbortSignal): Promise<Read> {
  switch (list) {
    case 'native': {
      const r = await evm.addressTransactions(chainId, address, q, signal);
      return { items: fromTransactions(r.items), complete: r.complete };
    }
    case 'erc20': {
      const r = await evm.addressErc20Transfers(chainId, address, q, signal);
      return { items: fromErc20(r.items), complete: r.complete };
    }
    case 'internal': {
      const r = await evm.addressInternalTransactions(chainId, address, q, signal);
      return { items: fromInternals(r.items), complete: r.complete };
    }
  }
}
