import type { Condition } from '../base/types.js';
import { CAUSE_RULE } from '../alerts/labels.js';
import type { Incident } from './types.js';

// An incident as one state alert of avawatch's own: what the notification says. Shares and
// members go in details, never in labels: an alert's labels must not change while it fires
// (Alertmanager knows an alert by them).

export const INCIDENT_ALERTNAME = 'incident';
/** An incident's alert is kept in the store under this prefix and its key, as a cause's is. */
export const INCIDENT_PREFIX = '!incident:';

const VALIDATORS = 'Validators';
const EVER = 'All validators it held';
const ALERTS = 'Alerts';

/** A share (0..1) as an operator reads it: `50 %`, `3.1 %`, `0.04 %`. */
export function percent(share: number): string {
  const p = share * 100;
  const digits = p >= 10 || p === 0 ? 0 : p >= 1 ? 1 : 2;
  return `${Number(p.toFixed(digits))} %`;
}

const count = (n: number) => `${n} validator${n === 1 ? '' : 's'}`;

/** `before`: the validators it listed earlier (read back with `listedValidators`), so the resolution names them all. */
export function incidentCondition(incident: Incident, before: readonly string[] = []): Condition {
  const all = [...new Set([...before, ...incident.validators])].sort();
  const own = incident.ownShare === undefined ? undefined : `${percent(incident.ownShare)} of your stake`;
  const net = incident.networkShare === undefined ? undefined : `${percent(incident.networkShare)} of the network's`;
  const where = incident.scope === 'group' ? `${(incident.group ?? '').replace('=', ' ')} on ${incident.network}` : `network-wide on ${incident.network}`;
  const what = incident.scope === 'group' ? count(incident.validators.length) : `${incident.family ?? ''} for ${count(incident.validators.length)}`;
  const labels: Record<string, string> = { alertname: INCIDENT_ALERTNAME, rule: CAUSE_RULE, scope: incident.scope, network: incident.network, severity: incident.severity };
  if (incident.group !== undefined) labels['group'] = incident.group;
  if (incident.family !== undefined) labels['family'] = incident.family;
  const details: Record<string, string> = { Scope: incident.scope === 'group' ? `your group ${incident.group ?? ''}` : 'network-wide' };
  if (incident.networkShare !== undefined) details["Share of the network's stake"] = percent(incident.networkShare);
  if (incident.ownShare !== undefined) details['Share of your stake'] = percent(incident.ownShare);
  details[VALIDATORS] = incident.validators.join(', ');
  details[ALERTS] = incident.members.map((m) => `${m.validator}: ${m.family}`).join(', ');
  details[EVER] = all.join(', ');
  return {
    key: incident.key,
    subject: incident.scope === 'group' ? (incident.group ?? incident.key) : incident.network,
    severity: incident.severity,
    summary: `${where}: ${what}${[own, net].some(Boolean) ? ` — ${[own, net].filter(Boolean).join(', ')}` : ''}`,
    resolvedSummary: `over: ${where}, ${count(all.length)} held`,
    resolvedDetails: { [VALIDATORS]: all.join(', ') },
    labels,
    details,
  };
}

/** The validators an incident's alert listed, read back from its details. */
export function listedValidators(c: Condition | undefined): string[] {
  const all = c?.details[EVER];
  return all ? all.split(', ').filter((v) => v !== '') : [];
}

/** Its members as its alert listed them last (`v6: validator-health/uptime`), read back from its details. */
export function listedAlerts(c: Condition | undefined): string[] {
  const all = c?.details[ALERTS];
  return all ? all.split(', ').filter((a) => a !== '') : [];
}
