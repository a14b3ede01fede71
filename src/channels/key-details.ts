import { ruleKinds } from '../rules/registry.js';
import type { AlertMessage } from './types.js';

// The details a grouped post's line carries for one alert: those its kind declares as key
// (`keyDetails`: the reward, the uptime, the version) that the alert has.

/** Key details of alerts that are not a kind's: a rule that cannot evaluate says why. */
const OTHER: Record<string, readonly string[]> = { 'rule-failing': ['Error'] };

/** At most this many per line: a line is read on a phone. */
const MAX_KEY_DETAILS = 2;

/** Those the alert has, in the kind's order; one its summary already states (the amount of a transfer) is not said twice. */
export function keyDetails(a: Pick<AlertMessage, 'kind' | 'details' | 'summary'>): Array<[string, string]> {
  const names = (ruleKinds as Record<string, { keyDetails?: readonly string[] } | undefined>)[a.kind]?.keyDetails ?? OTHER[a.kind] ?? [];
  const said = (value: string) => value === '' || a.summary.includes(value);
  return names.flatMap((name): Array<[string, string]> => (a.details[name] === undefined || said(a.details[name]) ? [] : [[name, a.details[name]]])).slice(0, MAX_KEY_DETAILS);
}
