import { userInfo } from 'node:os';
import { producibleLabels, producibleValues } from '../alerts/labels.js';
import { formatMatcher, parseMatcher, silenceMatches } from '../alerts/silence.js';
import { parseDuration } from '../base/duration.js';
import { nearest } from '../base/nearest.js';
import type { LoadedConfig } from '../config/load.js';
import type { Matcher } from '../store/index.js';
import { openConfiguredStore } from '../app/compose.js';
import { systemClock } from '../base/clock.js';

export interface SilenceAddOptions {
  match: string[];
  for?: string;
  until?: string;
  comment: string;
  author?: string;
  /** Add it even when no rule or kind produces a label, or a value, it matches. */
  force?: boolean;
}

/** `avawatch silence add`: mutes matching notifications from now until --for / --until. */
export async function silenceAdd(loaded: LoadedConfig, o: SilenceAddOptions): Promise<string> {
  if (o.match.length === 0) throw new Error('give at least one --match name=value (or name=~regex)');
  const matchers = o.match.map(parseMatcher);
  if (!o.force) {
    const known = producibleLabels(loaded);
    const unknown = matchers.map((m) => m.name).filter((n) => !known.includes(n));
    if (unknown.length > 0) {
      const which = unknown.map((n) => `"${n}"`).join(', ');
      throw new Error(`no configured rule or kind produces the label${unknown.length === 1 ? '' : 's'} ${which}: the silence would mute nothing. Labels alerts carry: ${known.join(', ')} (--force adds it anyway)`);
    }
    const stranger = unmatchable(loaded, matchers);
    if (stranger !== undefined) throw new Error(`${stranger} (--force adds it anyway)`);
  }
  const now = systemClock.now();
  let endsAt: number;
  if (o.for !== undefined) {
    const ms = parseDuration(o.for);
    if (ms === undefined || ms <= 0) throw new Error(`--for: "${o.for}" is not a duration such as 2h`);
    endsAt = now + ms;
  } else if (o.until !== undefined) {
    endsAt = Date.parse(o.until);
    if (Number.isNaN(endsAt) || endsAt <= now) throw new Error(`--until: "${o.until}" is not a future ISO date`);
  } else throw new Error('give --for DURATION or --until DATE');
  const store = await openConfiguredStore(loaded);
  try {
    const id = await store.addSilence({ matchers, startsAt: now, endsAt, comment: o.comment, createdBy: o.author ?? safeUser(), createdAt: now });
    return `silence #${id} until ${new Date(endsAt).toISOString()}: ${matchers.map(formatMatcher).join(', ')}`;
  } finally {
    await store.close();
  }
}

export async function silenceList(loaded: LoadedConfig, all: boolean, json: boolean): Promise<string[]> {
  const store = await openConfiguredStore(loaded, { write: false });
  try {
    const now = systemClock.now();
    const list = await store.silences(now, all);
    if (json) return list.map((s) => JSON.stringify({ ...s, startsAt: new Date(s.startsAt).toISOString(), endsAt: new Date(s.endsAt).toISOString(), active: s.startsAt <= now && s.endsAt > now }));
    if (list.length === 0) return [all ? 'no silences' : 'no silences in force'];
    return list.map((s) => {
      const state = s.endsAt <= now ? 'expired' : 'active ';
      return `#${s.id} ${state} until ${new Date(s.endsAt).toISOString()}  ${s.matchers.map(formatMatcher).join(', ')}  "${s.comment}" (${s.createdBy})`;
    });
  } finally {
    await store.close();
  }
}

export async function silenceExpire(loaded: LoadedConfig, id: number): Promise<boolean> {
  const store = await openConfiguredStore(loaded);
  try {
    return await store.expireSilence(id, systemClock.now());
  } finally {
    await store.close();
  }
}

/** How an error names the values of a label that are names: [one of them, the list]. */
const NAMED: Partial<Record<string, [string, string]>> = { validator: ['validator of the inventory', 'Its validators'], rule: ['configured rule', 'Its rules'] };

/**
 * Why a matcher can match no alert, or undefined: a value (or a pattern matching no value) of
 * a label whose values the config fixes (producibleValues: a typo'd `validator=alfa`, a rule
 * that is not configured, `severity=crit`). A matcher that matches an empty value matches
 * alerts without the label, so it can match.
 */
function unmatchable(loaded: LoadedConfig, matchers: readonly Matcher[]): string | undefined {
  for (const m of matchers) {
    const values = producibleValues(loaded, m.name);
    if (values === undefined || silenceMatches({ matchers: [m] }, {})) continue;
    if (values.some((value) => silenceMatches({ matchers: [m] }, { [m.name]: value }))) continue;
    const near = m.regex ? undefined : nearest(m.value, values);
    const shown = values.length > 10 ? `${values.slice(0, 10).join(', ')}, …` : values.join(', ');
    const [what, listed] = NAMED[m.name] ?? [`value of ${m.name}`, `Values of ${m.name}`];
    const why = m.regex ? `the pattern ${formatMatcher(m)} matches no ${what}` : NAMED[m.name] ? `no ${what} is named "${m.value}"` : `no alert carries ${m.name}="${m.value}"`;
    return `${why}${near ? ` (did you mean ${near}?)` : ''}: the silence would mute nothing. ${listed}: ${shown}`;
  }
  return undefined;
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}
