import type { IcmMessage } from '../../api/schemas.js';
import { apiCall } from '../../api/catalog.js';
import { formatDuration } from '../../config/duration.js';
import { isFailed, lookupEach, type Outcome } from '../lookup.js';
import type { Condition, GaugeSample, RuleKind } from '../types.js';
import { isoSeconds } from '../validator-status/index.js';
import { spec, state, type Spec, type State } from './schema.js';

export interface Observation {
  /** Per address: the messages read and whether the list ended within maxPages, or why its lookup failed. */
  byAddress: Record<string, Outcome<{ messages: IcmMessage[]; complete: boolean }>>;
}

const LOOKUP_CONCURRENCY = 2;

export const icmPending: RuleKind<Spec, Observation, State> = {
  kind: 'icm-pending',
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
    const results = await lookupEach(s.addresses, LOOKUP_CONCURRENCY, signal, (address) => data.icmMessages(address, s.network, s.maxPages, signal));
    return { byAddress: Object.fromEntries(results) };
  },

  evaluate(previous, observation, now, s) {
    const nowS = Math.floor(now.getTime() / 1000);
    const states: Record<string, State> = {};
    const failed: Record<string, string> = {};
    const seen = new Set<string>();
    for (const [address, read] of Object.entries(observation.byAddress)) {
      if (isFailed(read)) {
        // Its messages stay tracked as they were: a failed read is never "delivered".
        failed[address] = read.failed;
        for (const [id, st] of Object.entries(previous)) if (st.address === address) states[id] = st;
        continue;
      }
      const { messages, complete } = read;
      for (const m of messages) {
        seen.add(m.messageId);
        const source = (m as { sourceTransaction?: { timestamp: number } }).sourceTransaction;
        if (m.status !== 'pending' || !source) continue;
        const token = [m.rewardDetails?.name, m.rewardDetails?.symbol && `(${m.rewardDetails.symbol})`].filter(Boolean).join(' ');
        states[m.messageId] = { address, sourceTimestamp: source.timestamp, destination: m.destinationEvmChainId ?? m.destinationBlockchainId, token };
      }
      // A tracked message past the pages read is still pending as far as we know.
      if (!complete) {
        for (const [id, st] of Object.entries(previous)) {
          if (st.address === address && !seen.has(id) && (nowS - st.sourceTimestamp) * 1000 < s.maxAge) states[id] = st;
        }
      }
    }
    const conditions: Condition[] = [];
    for (const [id, st] of Object.entries(states)) {
      const age = nowS - st.sourceTimestamp;
      if (age * 1000 <= s.olderThan) continue;
      conditions.push({
        key: id,
        subject: id,
        summary: `ICM message ${id} from ${st.address} to chain ${st.destination} has been pending for ${formatDuration(Math.floor(age / 60) * 60_000)} (sent ${isoSeconds(st.sourceTimestamp)})`,
        resolvedSummary: `ICM message ${id} from ${st.address} is no longer pending`,
        labels: { message_id: id, address: st.address, network: s.network },
        details: { Message: id, From: st.address, 'Destination chain': st.destination, Sent: isoSeconds(st.sourceTimestamp), 'Reward token': st.token || 'none' },
      });
    }
    return { states, alerts: [], conditions, failed };
  },

  samples(s, states, now) {
    const nowS = Math.floor(now.getTime() / 1000);
    const out: GaugeSample[] = [];
    for (const address of s.addresses) {
      const pending = Object.values(states).filter((st) => st.address === address);
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
