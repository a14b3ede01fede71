import { systemClock } from '../../base/clock.js';
import type { Network } from '../../api/data/reader.js';
import type { SignatureAggregator } from '../../api/data/signatures.js';
import { apiCall } from '../../api/catalog.js';
import { ApiError } from '../../api/errors.js';
import { record } from '../../base/record.js';
import { excerpt, isoSeconds } from '../format.js';
import { isFailed, keepFailed, lookupEach, type Outcome } from '../lookup.js';
import type { Condition, Evaluation, GaugeSample, Resolution, RuleKind } from '../types.js';
import { spec, state, type Spec, type State } from './schema.js';

/** One probe the aggregator answered (or failed to): latency in seconds. */
export type Probe = { ok: true; latency: number } | { ok: false; latency: number; how: 'http' | 'timeout' | 'malformed' | 'network'; error: string; status?: number };

export interface Observation {
  /** Per txHash; a failed lookup is a probe that says nothing about the aggregator (see probe()). */
  probes: Record<string, Outcome<Probe>>;
}

const LOOKUP_CONCURRENCY = 2;
/**
 * Refusals of our own key, not the aggregator failing: the service's rate limit (429) and a
 * key it does not accept (401, 403). Not counted; a run of them fires rule-failing instead.
 */
const REFUSED = new Set([401, 403, 429]);
/** Our own side: shutdown, and our compute-unit budget pausing the call before it was sent. */
const OURS = new Set(['aborted', 'budget', 'rate_limited']);
/** What an alert quotes of the service's error: a proxy's page or a 64 KB message is cut to this. */
const MESSAGE_CHARS = 200;

/**
 * Probes the signature aggregator for each txHash every interval. A failed probe is what is
 * measured (not a failed lookup): `failures` in a row fire, a success resolves.
 */
export const signatureAggregator: RuleKind<Spec, Observation, State> = {
  kind: 'signature-aggregator',
  keyDetails: ['Failure', 'Failed in a row'],
  labelNames: ['tx_hash', 'network'],
  spec,
  state,
  gauges: [
    { name: 'avawatch_signature_aggregator_probe_latency_seconds', help: 'How long the last probe of the signature aggregator took from the moment it was sent (seconds), failed or not.', labelNames: ['rule', 'network', 'tx_hash'] },
    { name: 'avawatch_signature_aggregator_probe_success', help: 'Whether the last probe of the signature aggregator returned a signed message (1) or failed (0); a probe not counted (a 429) leaves it as it was.', labelNames: ['rule', 'network', 'tx_hash'] },
  ],

  async observe(s, { data, signal }) {
    return { probes: await lookupEach(s.txHashes, LOOKUP_CONCURRENCY, signal, (tx) => probe(data.signatures, s.network as Network, tx, signal)) };
  },

  evaluate(previous, observation, now, s) {
    const nowS = Math.floor(now.getTime() / 1000);
    const result: Evaluation<State> = { states: new Map(), alerts: [], conditions: [], failed: record() };
    for (const tx of s.txHashes) {
      const before = previous.get(tx);
      const p = observation.probes[tx];
      if (p === undefined || isFailed(p)) {
        // Not measured: what held holds, nothing is counted.
        keepFailed(result, tx, before, p?.failed ?? 'not probed');
        const held = before && condition(tx, before, s);
        if (held) result.conditions?.push(held);
        continue;
      }
      const st: State = p.ok
        ? { failures: 0, at: nowS, ok: true, latency: p.latency }
        : {
            failures: (before?.ok === false ? before.failures : 0) + 1,
            at: nowS,
            ok: false,
            latency: p.latency,
            failingSince: (before?.ok === false ? before.failingSince : undefined) ?? nowS,
            error: p.error,
            how: p.how,
            ...(p.status === undefined ? {} : { status: p.status }),
          };
      result.states.set(tx, st);
      const c = condition(tx, st, s);
      if (c) result.conditions?.push(c);
    }
    result.resolvedAs = (tx) => {
      const st = result.states.get(tx);
      return st && answering(tx, st, s);
    };
    return result;
  },

  samples(s, states) {
    const out: GaugeSample[] = [];
    for (const [tx, st] of states) {
      const labels = { network: s.network, tx_hash: tx };
      out.push({ metric: 'avawatch_signature_aggregator_probe_latency_seconds', labels, value: st.latency });
      out.push({ metric: 'avawatch_signature_aggregator_probe_success', labels, value: st.ok ? 1 : 0 });
    }
    return out;
  },

  describe: (s) => `${s.network}, ${s.txHashes.length} txHash${s.txHashes.length === 1 ? '' : 'es'}, firing after ${s.failures} failed probe${s.failures === 1 ? '' : 's'} in a row`,

  cost: (s) => ({ calls: s.txHashes.map((tx) => apiCall('GET', `/v1/signatureAggregator/${s.network}/aggregateSignatures/${tx}`)) }),
};

/**
 * One probe: a success, a failure of the aggregator (any status but the refusals, a timeout,
 * a dropped connection, an answer without a signed message or with an empty one), or a throw when it says nothing
 * about the aggregator (our shutdown or budget, the service refusing our key).
 */
async function probe(aggregator: SignatureAggregator, network: Network, tx: string, signal: AbortSignal): Promise<Probe> {
  // From the moment it is sent: a wait for our own budget is not the aggregator's latency.
  // A round trip on the network: the host's steady clock, whatever the App's runs at.
  let started = systemClock.mono();
  const latency = () => Math.round(systemClock.mono() - started) / 1000;
  try {
    const answer = await aggregator.aggregate(network, tx, signal, () => (started = systemClock.mono()));
    // A 201 that signs nothing is the aggregator failing, however well-formed the JSON.
    if (answer.signedMessage.trim() === '') return { ok: false, latency: latency(), how: 'malformed', error: 'malformed answer: the signed message is empty' };
    return { ok: true, latency: latency() };
  } catch (err) {
    signal.throwIfAborted();
    if (!(err instanceof ApiError)) throw err;
    const d = err.details;
    if (OURS.has(d.code) || (d.status !== undefined && REFUSED.has(d.status))) throw err;
    // The message without its "data API GET /path: " prefix: the path is the txHash, shown beside.
    const full = err.message.replace(/^\w+ API (?:(?:GET|POST) )?\S+: /, '');
    // The service's message is its own text, of any length (a proxy's HTML page): a summary quotes a short excerpt.
    const what = excerpt(full, MESSAGE_CHARS);
    if (d.status !== undefined) return { ok: false, latency: latency(), how: 'http', status: d.status, error: what };
    if (d.code === 'timeout') return { ok: false, latency: latency(), how: 'timeout', error: `timeout: ${what}` };
    if (d.code === 'network_error') return { ok: false, latency: latency(), how: 'network', error: what };
    return { ok: false, latency: latency(), how: 'malformed', error: `malformed answer: ${what}` };
  }
}

/** What a failing-probe alert says when it stops holding: the probe that answered, as read now. */
function answering(tx: string, st: State, s: Spec): Resolution | undefined {
  if (!st.ok) return undefined;
  return {
    summary: `The signature aggregator on ${s.network} answers for ${tx} again`,
    details: { Transaction: tx, Network: s.network, 'Last probe': `${isoSeconds(st.at)}, ${st.latency}s, answered` },
  };
}

function condition(tx: string, st: State, s: Spec): Condition | undefined {
  if (st.ok || st.failures < s.failures) return undefined;
  const error = st.error ?? 'unknown';
  return {
    key: tx,
    subject: tx,
    summary: `The signature aggregator on ${s.network} failed ${st.failures} probe${st.failures === 1 ? '' : 's'} in a row for ${tx}: ${error}`,
    resolvedSummary: `The signature aggregator on ${s.network} answers for ${tx} again`,
    labels: { tx_hash: tx, network: s.network },
    details: {
      Transaction: tx,
      Network: s.network,
      Failure: st.how === 'http' ? `HTTP ${st.status ?? '?'}` : (st.how ?? 'unknown'),
      Error: error,
      'Failing since': st.failingSince === undefined ? 'unknown' : isoSeconds(st.failingSince),
      'Failed in a row': `${st.failures} (fires at ${s.failures})`,
      'Last probe': `${isoSeconds(st.at)}, ${st.latency}s`,
    },
  };
}
