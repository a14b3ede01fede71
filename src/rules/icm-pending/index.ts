import type { IcmMessage } from '../../api/schemas.js';
import { apiCall } from '../../api/catalog.js';
import { formatDuration, formatElapsed } from '../../base/duration.js';
import { isFailed, lookupEach, type Outcome } from '../lookup.js';
import type { Condition, GaugeSample, Resolution, RuleKind } from '../types.js';
import { isoSeconds } from '../format.js';
import { spec, state, type Spec, type State } from './schema.js';

export interface Observation {
  /** Per address: the messages read and whether the list ended within maxPages, or why its lookup failed. */
  byAddress: Record<string, Outcome<{ messages: IcmMessage[]; complete: boolean }>>;
}

const LOOKUP_CONCURRENCY = 2;

export const icmPending: RuleKind<Spec, Observation, State> = {
  kind: 'icm-pending',
  keyDetails: ['Status'],
  labelNames: ['message_id', 'address', 'network', 'status'],
  spec,
  state,
  gauges: [
    { name: 'avawatch_icm_pending_messages', help: 'ICM messages still pending for a watched address.', labelNames: ['rule', 'network', 'address'] },
    {
      name: 'avawatch_icm_oldest_pending_age_seconds',
      help: 'Age of the oldest pending ICM message of a watched address, from its source transaction.',
      labelNames: ['rule', 'network', 'address'],
    },
  ],

  async observe(s, { data, signal }) {
    const results = await lookupEach(s.addresses, LOOKUP_CONCURRENCY, signal, (address) => data.icm.messages(address, s.network, s.maxPages, signal));
    return { byAddress: results };
  },

  evaluate(previous, observation, now, s) {
    const nowS = Math.floor(now.getTime() / 1000);
    const states = new Map<string, State>();
    const failed: Record<string, string> = {};
    // Tracked messages this read lists as delivered: what their resolution says.
    const delivered = new Map<string, Resolution>();
    for (const [address, read] of Object.entries(observation.byAddress)) {
      if (isFailed(read)) {
        // Its messages stay tracked as they were: a failed read is never "delivered".
        failed[address] = read.failed;
        for (const [id, st] of previous) if (st.address === address) states.set(id, st);
        continue;
      }
      const seen = new Set<string>();
      for (const m of read.messages) {
        // Newest first: a message listed twice (pages shifting under the walk) counts once, as first seen.
        if (seen.has(m.messageId)) continue;
        seen.add(m.messageId);
        const was = previous.get(m.messageId);
        if (was && DELIVERED.has(m.status)) delivered.set(m.messageId, deliveredAs(m.messageId, was, m.status));
        const st = track(address, m, was);
        if (st) states.set(m.messageId, st);
      }
      // A tracked message past the pages read is still where it was as far as we know,
      // until maxAge: then it is dropped, and its alert says so.
      if (read.complete) continue;
      for (const [id, st] of previous) {
        if (st.address !== address || seen.has(id) || st.expired) continue;
        states.set(id, (nowS - st.sourceTimestamp) * 1000 < s.maxAge ? st : { ...st, expired: true });
      }
    }
    const conditions = [...states].flatMap(([id, st]) => condition(id, st, nowS, s) ?? []);
    const resolvedAs = (id: string): Resolution | undefined => {
      const st = states.get(id);
      return delivered.get(id) ?? (st && stillTracked(id, st));
    };
    return { states, alerts: [], conditions, failed, resolvedAs };
  },

  samples(s, states, now) {
    const nowS = Math.floor(now.getTime() / 1000);
    const out: GaugeSample[] = [];
    for (const address of s.addresses) {
      const pending = [...states.values()].filter((st) => st.address === address && st.status === 'pending' && !st.expired);
      const labels = { network: s.network, address };
      out.push({ metric: 'avawatch_icm_pending_messages', labels, value: pending.length });
      const oldest = Math.min(...pending.map((p) => p.sourceTimestamp));
      if (pending.length > 0) out.push({ metric: 'avawatch_icm_oldest_pending_age_seconds', labels, value: Math.max(0, nowS - oldest) });
    }
    return out;
  },

  describe: (s) => `${s.network}, ${s.addresses.length} address(es), pending longer than ${formatDuration(s.olderThan)}`,
  cost: (s) => ({
    calls: s.addresses.map((a) => apiCall('GET', `/v1/icm/addresses/${a}/messages`, { network: s.network })),
    more: `up to ${s.maxPages} pages per address`,
  }),
};

/** Statuses that end tracking: the message arrived. Every other one, known or not, is still watched. */
const DELIVERED = new Set(['delivered', 'delivered_source_not_indexed']);

function track(address: string, m: IcmMessage, before: State | undefined): State | undefined {
  if (DELIVERED.has(m.status)) return undefined;
  // A status the service added later may come without its source transaction.
  const sourceTimestamp = m.sourceTransaction?.timestamp ?? before?.sourceTimestamp;
  if (sourceTimestamp === undefined) return undefined;
  const token = [m.rewardDetails?.name, m.rewardDetails?.symbol && `(${m.rewardDetails.symbol})`].filter(Boolean).join(' ');
  return { address, sourceTimestamp, destination: m.destinationEvmChainId ?? m.destinationBlockchainId, token, status: m.status };
}

function deliveredAs(id: string, st: State, status: string): Resolution {
  return { summary: `ICM message ${id} from ${st.address} was delivered (status ${status})`, details: { Message: id, From: st.address, 'Destination chain': st.destination, Status: status } };
}

/** Still listed, no longer firing (back to pending under olderThan): says the status now. */
function stillTracked(id: string, st: State): Resolution | undefined {
  if (st.expired) return undefined;
  return { summary: `ICM message ${id} from ${st.address} is "${st.status}" now, not yet past the rule's olderThan`, details: { Message: id, From: st.address, 'Destination chain': st.destination, Status: st.status } };
}

/**
 * Pending past olderThan fires; any other status that is not a delivery fires at once,
 * named as the service said it. Only a delivery resolves with "delivered".
 */
function condition(id: string, st: State, nowS: number, s: Spec): Condition | undefined {
  const age = nowS - st.sourceTimestamp;
  const pending = st.status === 'pending';
  if (pending && age * 1000 <= s.olderThan) return undefined;
  const where = `ICM message ${id} from ${st.address} to chain ${st.destination}`;
  const summary = pending
    ? `${where} has been pending for ${formatElapsed(age * 1000)} (sent ${isoSeconds(st.sourceTimestamp)})`
    : `${where} is "${st.status}" (a status other than delivered; sent ${isoSeconds(st.sourceTimestamp)})`;
  const resolvedSummary = st.expired
    ? `ICM message ${id} from ${st.address} is no longer tracked: still "${st.status}" after maxAge ${formatDuration(s.maxAge)}, and past the pages read`
    : `ICM message ${id} from ${st.address} was delivered (or is no longer listed)`;
  return {
    key: id,
    subject: id,
    ...(pending ? {} : { tier: st.status }),
    summary,
    resolvedSummary,
    labels: { message_id: id, address: st.address, network: s.network, ...(pending ? {} : { status: st.status }) },
    details: { Message: id, From: st.address, 'Destination chain': st.destination, Status: st.status, Sent: isoSeconds(st.sourceTimestamp), 'Reward token': st.token || 'none' },
  };
}
