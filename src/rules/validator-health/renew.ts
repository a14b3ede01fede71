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
  const event = (summary: string, details: Record<string, string>, o: Pick<AlertDraft, 'news' | 'severity'> & { change: string }): AlertDraft => ({
    status: 'event',
    subject: node,
    summary,
    labels: { node, network: s.network, check: 'auto-renew', change: o.change },
    details: { ...base, ...details },
    ...(o.news ? { news: o.news } : {}),
    ...(o.severity ? { severity: o.severity } : {}),
  });
  if (now.start > before.start) out.push(renewed(node, before, now, event));
  if (now.nextPeriod !== before.nextPeriod) {
    const boundary = isoSeconds(now.end);
    if (now.nextPeriod === 0) {
      out.push(event(`${node} will exit at its cycle boundary, ${boundary}: nextPeriod is 0, so it is not restaked; its stake and rewards are returned then`, { 'Cycle ends': boundary, 'Next period': '0 (exit)', Was: roughSpan(before.nextPeriod) }, { news: 'neutral', change: 'exit-scheduled' }));
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
  const reward = navax(before.reward ?? '') ?? 0n;
  const fees = navax(before.delegateeReward ?? '') ?? 0n;
  const was = navax(before.weight);
  const restaked = stake !== undefined && was !== undefined && stake >= was ? stake - was : undefined;
  const ppm = BigInt(before.compoundShares);
  const wanted = (reward * ppm) / 1_000_000n + (fees * ppm) / 1_000_000n;
  const clipped = restaked !== undefined && stake === MAX_VALIDATOR_STAKE_NAVAX && wanted > restaked;
  const details: Record<string, string> = {
    'Cycle ended': isoSeconds(before.end),
    'Cycle ends': next,
    'Validation reward': `${formatAvax(reward)} AVAX`,
    'Delegation fees': `${formatAvax(fees)} AVAX`,
    ...(restaked === undefined ? {} : { Restaked: `${formatAvax(restaked)} AVAX`, 'Paid out': `${formatAvax(reward + fees - restaked)} AVAX` }),
    Stake: stakeText,
  };
  const head = `${node} renewed for a new cycle to ${next}, rewarded ${formatAvax(reward + fees)} AVAX for the last one`;
  if (clipped && restaked !== undefined) {
    details['Capped at'] = `${formatAvax(MAX_VALIDATOR_STAKE_NAVAX)} AVAX (MaxValidatorStake)`;
    return event(`${head}; restaking was clipped at the ${formatAvax(MAX_VALIDATOR_STAKE_NAVAX)} AVAX cap: ${formatAvax(wanted - restaked)} AVAX more than planned was paid out; stake now ${stakeText}`, details, { news: 'neutral', change: 'capped' });
  }
  return event(`${head}${restaked === undefined ? '' : ` (${formatAvax(restaked)} AVAX restaked)`}; stake now ${stakeText}`, details, { news: 'good', change: 'renewed' });
}

/** The P-Chain API lists the validator no more, past its boundary: it exited, or it was removed for its uptime. */
export function leftEvent(node: string, before: Renew, lastUptime: string | undefined, s: Spec): AlertDraft {
  const boundary = isoSeconds(before.end);
  const base = { Node: node, Network: s.network, 'Staking tx': before.txId, 'Cycle ended': boundary };
  if (before.nextPeriod === 0) {
    return {
      status: 'event',
      news: 'neutral',
      subject: node,
      summary: `${node} exited at its cycle boundary, ${boundary}, as scheduled (nextPeriod 0): its stake and rewards are returned`,
      labels: { node, network: s.network, check: 'auto-renew', change: 'exited' },
      details: base,
    };
  }
  const reward = before.reward === undefined ? 'its reward' : `its reward of ${avaxText(before.reward)}`;
  return {
    status: 'event',
    severity: 'critical',
    subject: node,
    summary: `${node} was removed at its cycle boundary, ${boundary}: it missed the uptime its cycle needed, and that cycle's reward is forfeited; ${reward} is lost, its stake is returned`,
    labels: { node, network: s.network, check: 'auto-renew', change: 'removed' },
    details: { ...base, ...(lastUptime ? { 'Uptime last read': lastUptime } : {}), Why: 'no longer a current validator after its boundary while nextPeriod was not 0: the cycle was not rewarded (RewardAutoRenewedValidatorTx aborted)' },
  };
}
