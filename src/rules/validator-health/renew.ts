import { roughSpan } from '../../base/duration.js';
import { avaxText, formatAvax, navax } from '../../base/amount.js';
import { isoSeconds } from '../format.js';
import { MAX_VALIDATOR_STAKE_NAVAX, SHARE_DENOMINATOR } from '../network.js';
import type { Owner, Staker } from '../pchain.js';
import type { AlertDraft } from '../types.js';

import type { Renew, Spec } from './schema.js';

// An auto-renewed validator (ACP-236) as the P-Chain API lists it, and what changed since the
// last read: at each cycle boundary it is restaked (capped at MaxValidatorStake, the excess paid
// out), exits (nextPeriod 0), or, having missed the uptime of the cycle, is removed and forfeits
// that cycle's reward (vms/platformvm/docs/validators_auto_renewed.md). A config change
// (SetAutoRenewedValidatorConfigTx) shows at once and decides what happens at the boundary.

export function renewOf(v: Staker): Renew | undefined {
  const a = v.autoRenew;
  if (!a) return undefined;
  return {
    txId: v.txId,
    start: v.start,
    end: v.end,
    nextPeriod: a.nextPeriod,
    compoundShares: a.compoundShares,
    ...(a.authority ? { authority: ownerText(a.authority) } : {}),
    weight: v.weight,
    ...(v.potentialReward === undefined ? {} : { reward: v.potentialReward }),
    ...(v.delegateeReward === undefined ? {} : { delegateeReward: v.delegateeReward }),
  };
}

function ownerText(o: Owner): string {
  return `${o.threshold} of ${o.addresses.length === 0 ? '(no address)' : o.addresses.join(', ')}`;
}

function share(ppm: number): string {
  return `${Number(((ppm / SHARE_DENOMINATOR) * 100).toFixed(4))}%`;
}

/** The events between two reads of the same auto-renewed validation (same txID). */
export function renewEvents(node: string, before: Renew, now: Renew, s: Spec): AlertDraft[] {
  const out: AlertDraft[] = [];
  const base = { Node: node, Network: s.network, 'Staking tx': now.txId };
  // No event of a change pages: what is bad news (the authority) says so without a `news`.
  const event = (summary: string, details: Record<string, string>, o: Pick<AlertDraft, 'news'> & { change: string }): AlertDraft => ({
    status: 'event',
    subject: node,
    summary,
    labels: { node, network: s.network, check: 'auto-renew', change: o.change },
    details: { ...base, ...details },
    ...(o.news ? { news: o.news } : {}),
  });
  if (now.start > before.start) out.push(renewed(node, before, now, event));
  if (now.nextPeriod !== before.nextPeriod) {
    const boundary = isoSeconds(now.end);
    if (now.nextPeriod === 0) {
      out.push(event(`${node} will exit at its cycle boundary, ${boundary}: nextPeriod is 0, so it is not restaked; its stake, and this cycle's reward if its uptime holds, are returned then`, { 'Cycle ends': boundary, 'Next period': '0 (exit)', Was: roughSpan(before.nextPeriod) }, { news: 'neutral', change: 'exit-scheduled' }));
    } else if (before.nextPeriod === 0) {
      out.push(event(`${node} renews again at its cycle boundary, ${boundary}: its next cycle lasts ${roughSpan(now.nextPeriod)} (the exit is called off)`, { 'Cycle ends': boundary, 'Next period': roughSpan(now.nextPeriod) }, { news: 'good', change: 'exit-cancelled' }));
    } else {
      out.push(event(`${node}'s next cycle will last ${roughSpan(now.nextPeriod)} (was ${roughSpan(before.nextPeriod)}), from its boundary ${boundary}`, { 'Cycle ends': boundary, 'Next period': roughSpan(now.nextPeriod), Was: roughSpan(before.nextPeriod) }, { news: 'neutral', change: 'period' }));
    }
  }
  if (now.compoundShares !== before.compoundShares) {
    out.push(event(`${node} now restakes ${share(now.compoundShares)} of each cycle's reward (was ${share(before.compoundShares)})`, { 'Auto-compound share': share(now.compoundShares), Was: share(before.compoundShares) }, { news: 'neutral', change: 'compound-share' }));
  }
  if (now.authority !== undefined && before.authority !== undefined && now.authority !== before.authority) {
    // Whoever holds the authority can change the period and the share: unexpected, it is bad news.
    out.push(event(`${node}'s validator authority changed: it is now ${now.authority} (was ${before.authority}); if you did not make this change, check your keys`, { 'Validator authority': now.authority, Was: before.authority }, { change: 'authority' }));
  }
  return out;
}

function renewed(node: string, before: Renew, now: Renew, event: (summary: string, details: Record<string, string>, o: { news: 'good' | 'neutral'; change: string }) => AlertDraft): AlertDraft {
  const next = isoSeconds(now.end);
  const stake = navax(now.weight);
  const stakeText = avaxText(now.weight);
  // Several boundaries since the last read (the daemon was down): only the last cycle's figures are known.
  if (now.start !== before.end) {
    return event(`${node} renewed: its current cycle runs to ${next} (${Math.max(1, Math.round((now.start - before.end) / Math.max(1, now.end - now.start)) + 1)} boundaries since it was last read); stake now ${stakeText}`, { 'Cycle ends': next, Stake: stakeText }, { news: 'good', change: 'renewed' });
  }
  const reward = navax(before.reward ?? '');
  // The fees as last read: more may have come in before the boundary.
  const fees = navax(before.delegateeReward ?? '') ?? 0n;
  const was = navax(before.weight);
  const restaked = stake !== undefined && was !== undefined && stake >= was ? stake - was : undefined;
  const ppm = BigInt(before.compoundShares);
  const wanted = reward === undefined ? undefined : (reward * ppm) / 1_000_000n + (fees * ppm) / 1_000_000n;
  const clipped = restaked !== undefined && wanted !== undefined && stake === MAX_VALIDATOR_STAKE_NAVAX && wanted > restaked;
  const total = reward === undefined ? undefined : reward + fees;
  const paidOut = total !== undefined && restaked !== undefined && total >= restaked ? total - restaked : undefined;
  const details: Record<string, string> = {
    'Cycle ended': isoSeconds(before.end),
    'Cycle ends': next,
    ...(reward === undefined ? {} : { 'Validation reward': `${formatAvax(reward)} AVAX` }),
    'Delegation fees': `${formatAvax(fees)} AVAX (as last read)`,
    ...(restaked === undefined ? {} : { Restaked: `${formatAvax(restaked)} AVAX` }),
    ...(paidOut === undefined ? {} : { 'Paid out': `${formatAvax(paidOut)} AVAX` }),
    Stake: stakeText,
  };
  const head = `${node} renewed for a new cycle to ${next}${total === undefined ? '' : `, rewarded ${formatAvax(total)} AVAX for the last one`}`;
  if (clipped && restaked !== undefined && wanted !== undefined) {
    details['Capped at'] = `${formatAvax(MAX_VALIDATOR_STAKE_NAVAX)} AVAX (MaxValidatorStake)`;
    return event(`${head}; restaking was clipped at the ${formatAvax(MAX_VALIDATOR_STAKE_NAVAX)} AVAX cap: ${formatAvax(wanted - restaked)} AVAX more than planned was paid out; stake now ${stakeText}`, details, { news: 'neutral', change: 'capped' });
  }
  return event(`${head}${restaked === undefined ? '' : ` (${formatAvax(restaked)} AVAX restaked)`}; stake now ${stakeText}`, details, { news: 'good', change: 'renewed' });
}

/** How the service lists the validation that ended: its status, and the validation reward it paid (nAVAX; "0": none). */
export interface Outcome {
  status: string;
  reward?: string | undefined;
}

/**
 * The validator left at its boundary (the P-Chain API lists it no more, and the service lists
 * that validation ended): it exited, or, its reward 0 while it was to renew, it was removed for
 * its uptime and that cycle's reward forfeited. The service's reward decides which is said.
 */
export function leftEvent(node: string, before: Renew, outcome: Outcome, lastUptime: string | undefined, s: Spec): AlertDraft {
  const boundary = isoSeconds(before.end);
  const paid = outcome.reward === undefined ? undefined : navax(outcome.reward);
  const base = { Node: node, Network: s.network, 'Staking tx': before.txId, 'Cycle ended': boundary, 'The service lists it': `${outcome.status}${paid === undefined ? '' : `, validation reward ${formatAvax(paid)} AVAX`}`, ...(lastUptime ? { 'Uptime last read': lastUptime } : {}) };
  const event = (summary: string, change: string, o: Pick<AlertDraft, 'news' | 'severity'>): AlertDraft => ({ status: 'event', subject: node, summary, labels: { node, network: s.network, check: 'auto-renew', change }, details: base, ...o });
  if (paid === 0n) {
    const lost = before.reward === undefined ? "that cycle's reward" : `that cycle's reward of ${avaxText(before.reward)}`;
    const why = before.nextPeriod === 0 ? `exited at its cycle boundary, ${boundary}, without ${lost}: its uptime in the cycle was under what it needed` : `was removed at its cycle boundary, ${boundary}: it missed the uptime its cycle needed, and ${lost} is forfeited`;
    return event(`${node} ${why}; its stake is returned`, before.nextPeriod === 0 ? 'exited' : 'removed', { severity: 'critical' });
  }
  const reward = paid === undefined ? '' : `, rewarded ${formatAvax(paid)} AVAX for its last cycle`;
  if (before.nextPeriod === 0) return event(`${node} exited at its cycle boundary, ${boundary}, as scheduled (nextPeriod 0)${reward}; its stake is returned`, 'exited', { news: 'neutral' });
  return event(`${node} left the validator set at its cycle boundary, ${boundary}${reward}, though it was to renew (its exit was not read before the boundary); its stake is returned`, 'exited', { news: 'neutral' });
}
