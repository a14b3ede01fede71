import type { L1Validator } from '../../api/schemas.js';
import { apiCall } from '../../api/catalog.js';
import { formatAvax, navaxToAvax } from '../../base/amount.js';
import { formatDuration, humanDuration } from '../../base/duration.js';
import { attempt, isFailed, lookupEach } from '../lookup.js';
import type { AlertDraft, Condition, GaugeSample, ObserveContext, Resolution, RuleKind } from '../types.js';
import { spread } from './spread.js';
import { spec, state, type Spec, type State } from './schema.js';
import { nextState, runwaySeconds } from '../l1-burn.js';
import { record } from '../../base/record.js';
import { isoSeconds } from '../format.js';

export interface Observation {
  active: L1Validator[];
  /** Tracked validators missing from the active list: as listed with inactive ones, or unlisted. */
  gone: Record<string, L1Validator | 'unlisted'>;
  /** Node or validation ids whose lookup failed, with why: their validators keep what held. */
  failed: Record<string, string>;
  /** The steady clock at the read (s): burn spans are measured on it. Unset (older callers): the wall's. */
  steadyS?: number;
}

const LOOKUP_CONCURRENCY = 2;

// The z.object shape is refined, so the engine's ZodObject slot takes its inner object.
const specObject = spec as unknown as RuleKind<Spec, Observation, State>['spec'];

export const l1ValidatorBalance: RuleKind<Spec, Observation, State> = {
  kind: 'l1-validator-balance',
  keyDetails: ['Remaining balance', 'Runway'],
  labelNames: ['validation_id', 'node', 'subnet', 'network', 'check'],
  spec: specObject,
  selects: ['validationIds'],
  state,
  spread,
  gauges: [
    {
      name: 'avawatch_l1_validator_balance_avax',
      help: 'Remaining balance of an active L1 validator in AVAX.',
      labelNames: ['rule', 'network', 'subnet_id', 'validation_id', 'node_id'],
    },
    {
      name: 'avawatch_l1_validator_runway_seconds',
      help: 'Seconds until the L1 validator runs out of balance at the fee it actually burned.',
      labelNames: ['rule', 'network', 'subnet_id', 'validation_id', 'node_id'],
    },
  ],

  async observe(s, { data, signal, previous, now, steadyMs }) {
    const active: L1Validator[] = [];
    const failed: Record<string, string> = {};
    // A whole subnet is one list: it is read whole or the evaluation fails.
    if (s.subnetId !== undefined) active.push(...(await data.primary.l1Validators(s.network, { subnetId: s.subnetId }, signal)));
    else {
      const byId = s.validationIds !== undefined;
      const results = await lookupEach(s.validationIds ?? s.nodeIds ?? [], LOOKUP_CONCURRENCY, signal, (key) =>
        data.primary.l1Validators(s.network, byId ? { validationId: key } : { nodeId: key }, signal),
      );
      for (const [key, read] of Object.entries(results)) {
        if (isFailed(read)) failed[key] = read.failed;
        else active.push(...read);
      }
    }
    const seen = new Set(active.map((v) => v.validationId));
    const gone: Observation['gone'] = record();
    for (const [id, st] of previous as ReadonlyMap<string, State>) {
      if (seen.has(id) || st.inactive || !watchedState(s, id, st) || coveredBy(failed, id, st)) continue;
      const found = await attempt(signal, () => confirmGone(data, s, id, signal));
      if (isFailed(found)) failed[id] = found.failed;
      else if ('still' in found) active.push(found.still);
      else gone[id] = found.gone;
    }
    return { active: active.filter((v) => watched(s, v)), gone, failed, steadyS: Math.floor((steadyMs ?? now.getTime()) / 1000) };
  },

  evaluate(previous, observation, now, s) {
    const nowS = Math.floor(now.getTime() / 1000);
    // Only what the rule still watches is kept (nodeIds or validationIds may have changed).
    const states = new Map([...previous].filter(([id, st]) => watchedState(s, id, st)));
    const alerts: AlertDraft[] = [];
    const conditions: Condition[] = [];
    for (const v of observation.active) {
      const st = nextState(previous.get(v.validationId), v, nowS, observation.steadyS ?? nowS);
      states.set(v.validationId, st);
      conditions.push(...checks(v.validationId, st, s));
    }
    // Not read this time: what held, holds.
    for (const [id, st] of states) {
      if (!st.inactive && coveredBy(observation.failed, id, st)) conditions.push(...checks(id, st, s));
    }
    for (const [id, found] of Object.entries(observation.gone)) {
      const before = previous.get(id);
      if (!before) continue;
      if (found === 'unlisted') {
        conditions.push(...checks(id, before, s)); // no word either way: what held, holds
        continue;
      }
      states.set(id, { ...before, balance: found.remainingBalance, at: nowS, inactive: true });
      alerts.push({
        status: 'event',
        subject: id,
        summary: `L1 validator ${id} (${before.nodeId}) is inactive: it left the active set with ${formatAvax(BigInt(found.remainingBalance))} AVAX`,
        labels: labelsOf(id, before, s),
        details: { 'Validation ID': id, Node: before.nodeId, Subnet: before.subnetId, 'Remaining balance': `${formatAvax(BigInt(found.remainingBalance))} AVAX` },
      });
    }
    // A validator still inactive keeps its (resolved) state; conditions only come from active ones.
    const resolvedAs = (key: string): Resolution | undefined => {
      const at = key.lastIndexOf('/');
      const id = key.slice(0, at);
      const st = states.get(id);
      return st && balanceNow(id, key.slice(at + 1), st, s);
    };
    return { states, alerts, conditions, failed: observation.failed, resolvedAs };
  },

  samples(s, states) {
    const out: GaugeSample[] = [];
    for (const [id, st] of states) {
      // Validators that left the active set are kept in state, not exported: series stay bounded.
      if (st.inactive) continue;
      const labels = { network: s.network, subnet_id: st.subnetId, validation_id: id, node_id: st.nodeId };
      out.push({ metric: 'avawatch_l1_validator_balance_avax', labels, value: navaxToAvax(BigInt(st.balance)) });
      const runway = runwaySeconds(st);
      if (runway !== undefined) out.push({ metric: 'avawatch_l1_validator_runway_seconds', labels, value: runway });
    }
    return out;
  },

  chartLevels(s, metric) {
    if (metric !== 'avawatch_l1_validator_balance_avax' || s.minBalance === undefined) return [];
    const min = navaxToAvax(s.minBalance);
    return [{ value: min, label: `minimum ${min} AVAX`, firm: true }];
  },

  describe(s) {
    const scope = s.subnetId ? `subnet ${s.subnetId}` : s.validationIds ? `${s.validationIds.length} validation id(s)` : `${s.nodeIds?.length ?? 0} node(s)`;
    const limits = [s.minBalance !== undefined ? `min ${formatAvax(s.minBalance)} AVAX` : '', s.minRunway !== undefined ? `runway ${formatDuration(s.minRunway)}` : '']
      .filter(Boolean)
      .join(', ');
    return `${s.network}, ${scope}, ${limits}`;
  },

  cost(s) {
    const path = `/v1/networks/${s.network}/l1Validators`;
    if (s.subnetId !== undefined) return { calls: [apiCall('GET', path, { subnetId: s.subnetId })], more: 'one more call per 100 validators of the subnet' };
    const calls = s.validationIds ? s.validationIds.map((id) => apiCall('GET', path, { l1ValidationId: id })) : (s.nodeIds ?? []).map((id) => apiCall('GET', path, { nodeId: id }));
    return { calls, more: 'two more calls for a validator that leaves the active set' };
  },
};

/** A validator that left the list: still active when asked by its own id (missed by paging), or listed inactive? */
async function confirmGone(data: ObserveContext['data'], s: Spec, id: string, signal: AbortSignal): Promise<{ still: L1Validator } | { gone: L1Validator | 'unlisted' }> {
  const own = (await data.primary.l1Validators(s.network, { validationId: id }, signal)).find((v) => v.validationId === id);
  if (own) return { still: own };
  // Not active: confirm with the inactive ones before saying so.
  const listed = await data.primary.l1Validators(s.network, { validationId: id, includeInactive: true }, signal);
  return { gone: listed.find((v) => v.validationId === id) ?? 'unlisted' };
}

/** Whether a tracked validator's lookup (by its own id, or its node) failed this time. */
function coveredBy(failed: Record<string, string>, id: string, st: Pick<State, 'nodeId'>): boolean {
  return Object.hasOwn(failed, id) || Object.hasOwn(failed, st.nodeId);
}

function watched(s: Spec, v: L1Validator): boolean {
  return watchedState(s, v.validationId, v) && (s.subnetId === undefined || v.subnetId === s.subnetId);
}

function watchedState(s: Spec, id: string, st: Pick<State, 'nodeId'>): boolean {
  return (!s.nodeIds || s.nodeIds.includes(st.nodeId)) && (!s.validationIds || s.validationIds.includes(id));
}

function labelsOf(id: string, st: Pick<State, 'nodeId' | 'subnetId'>, s: Spec): Record<string, string> {
  return { validation_id: id, node: st.nodeId, subnet: st.subnetId, network: s.network };
}

/** What a balance or runway alert says when it stops holding: the balance and runway read now. */
function balanceNow(id: string, check: string, st: State, s: Spec): Resolution {
  const avax = `${formatAvax(BigInt(st.balance))} AVAX`;
  const details: Record<string, string> = { 'Validation ID': id, Node: st.nodeId, Subnet: st.subnetId, 'Remaining balance': avax };
  const who = `L1 validator ${id} (${st.nodeId})`;
  if (st.inactive) return { summary: `${who} is no longer active: it left the active set with ${avax}`, details };
  const runway = runwaySeconds(st);
  if (st.burnPerSecond) details['Burn'] = `${formatAvax(BigInt(Math.round(st.burnPerSecond * 86_400)))} AVAX/day`;
  if (runway !== undefined) details['Runway'] = humanDuration(runway * 1000);
  const enough = runway === undefined ? '' : `, enough for ${humanDuration(runway * 1000)}`;
  if (check === 'runway' && s.minRunway !== undefined) return { summary: `${who} no longer runs out within ${formatDuration(s.minRunway)}: ${avax} now${enough}`, details };
  if (check === 'balance' && s.minBalance !== undefined) return { summary: `${who} is no longer below ${formatAvax(s.minBalance)} AVAX: ${avax} now${enough}`, details };
  return { summary: `${who} has ${avax} now${enough}`, details };
}

function checks(id: string, st: State, s: Spec): Condition[] {
  const out: Condition[] = [];
  const balance = BigInt(st.balance);
  const avax = `${formatAvax(balance)} AVAX`;
  const details = { 'Validation ID': id, Node: st.nodeId, Subnet: st.subnetId, 'Remaining balance': avax };
  const runway = runwaySeconds(st);
  const perDay = st.burnPerSecond ? `${formatAvax(BigInt(Math.round(st.burnPerSecond * 86_400)))} AVAX/day` : 'unknown yet';
  if (s.minBalance !== undefined && balance < s.minBalance) {
    out.push({
      key: `${id}/balance`,
      subject: id,
      summary: `L1 validator ${id} (${st.nodeId}) has ${avax} left, below ${formatAvax(s.minBalance)} AVAX`,
      resolvedSummary: `L1 validator ${id} (${st.nodeId}) is no longer below ${formatAvax(s.minBalance)} AVAX (topped up, or no longer active)`,
      labels: { ...labelsOf(id, st, s), check: 'balance' },
      details: { ...details, Minimum: `${formatAvax(s.minBalance)} AVAX`, Burn: perDay },
    });
  }
  if (s.minRunway !== undefined && runway !== undefined && runway * 1000 < s.minRunway && st.burnPerSecond) {
    // How much keeps it running for minRunway at this burn.
    const need = BigInt(Math.ceil(st.burnPerSecond * (s.minRunway / 1000))) - balance;
    out.push({
      key: `${id}/runway`,
      subject: id,
      // When, as a time (from the balance's reading), not "in 22h" from the evaluation: true whenever it is delivered.
      summary: `L1 validator ${id} (${st.nodeId}) runs out of balance around ${isoSeconds(st.at + runway)}, within ${formatDuration(s.minRunway)}, at ${perDay}; top up ${formatAvax(need > 0n ? need : 0n)} AVAX to keep it running for ${formatDuration(s.minRunway)}`,
      resolvedSummary: `L1 validator ${id} (${st.nodeId}) no longer runs out within ${formatDuration(s.minRunway)} (topped up, or no longer active)`,
      labels: { ...labelsOf(id, st, s), check: 'runway' },
      details: { ...details, Burn: perDay, Runway: humanDuration(runway * 1000), 'Top up for the minimum runway': `${formatAvax(need > 0n ? need : 0n)} AVAX` },
    });
  }
  return out;
}
