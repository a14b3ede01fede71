import { userInfo } from 'node:os';
import { producibleLabels } from '../alerts/labels.js';
import { formatMatcher, parseMatcher } from '../alerts/silence.js';
import { parseDuration } from '../base/duration.js';
import { nearest } from '../base/nearest.js';
import type { LoadedConfig } from '../config/load.js';
import { Store, type Matcher } from '../store/index.js';

export interface SilenceAddOptions {
  match: string[];
  for?: string;
  until?: string;
  comment: string;
  author?: string;
  /** Add it even when no rule or kind produces a label it matches. */
  force?: boolean;
}

/** `avawatch silence add`: mutes matching notifications from now until --for / --until. */
export function silenceAdd(loaded: LoadedConfig, o: SilenceAddOptions): string {
  if (o.match.length === 0) throw new Error('give at least one --match name=value (or name=~regex)');
  const matchers = o.match.map(parseMatcher);
  if (!o.force) {
    const known = producibleLabels(loaded);
    const unknown = matchers.map((m) => m.name).filter((n) => !known.includes(n));
    if (unknown.length > 0) {
      const which = unknown.map((n) => `"${n}"`).join(', ');
      throw new Error(`no configured rule or kind produces the label${unknown.length === 1 ? '' : 's'} ${which}: the silence would mute nothing. Labels alerts carry: ${known.join(', ')} (--force adds it anyway)`);
    }
    const stranger = unknownValidator(loaded, matchers);
    if (stranger !== undefined) throw new Error(`${stranger} (--force adds it anyway)`);
  }
  const now = Date.now();
  let endsAt: number;
  if (o.for !== undefined) {
    const ms = parseDuration(o.for);
    if (ms === undefined || ms <= 0) throw new Error(`--for: "${o.for}" is not a duration such as 2h`);
    endsAt = now + ms;
  } else if (o.until !== undefined) {
    endsAt = Date.parse(o.until);
    if (Number.isNaN(endsAt) || endsAt <= now) throw new Error(`--until: "${o.until}" is not a future ISO date`);
  } else throw new Error('give --for DURATION or --until DATE');
  const store = Store.open(loaded.config.state.path);
  try {
    const id = store.addSilence({ matchers, startsAt: now, endsAt, comment: o.comment, createdBy: o.author ?? safeUser(), createdAt: now });
    return `silence #${id} until ${new Date(endsAt).toISOString()}: ${matchers.map(formatMatcher).join(', ')}`;
  } finally {
    store.close();
  }
}

export function silenceList(loaded: LoadedConfig, all: boolean, json: boolean): string[] {
  const store = Store.open(loaded.config.state.path, { write: false });
  try {
    const now = Date.now();
    const list = store.silences(now, all);
    if (json) return list.map((s) => JSON.stringify({ ...s, startsAt: new Date(s.startsAt).toISOString(), endsAt: new Date(s.endsAt).toISOString(), active: s.startsAt <= now && s.endsAt > now }));
    if (list.length === 0) return [all ? 'no silences' : 'no silences in force'];
    return list.map((s) => {
      const state = s.endsAt <= now ? 'expired' : 'active ';
      return `#${s.id} ${state} until ${new Date(s.endsAt).toISOString()}  ${s.matchers.map(formatMatcher).join(', ')}  "${s.comment}" (${s.createdBy})`;
    });
  } finally {
    store.close();
  }
}

export function silenceExpire(loaded: LoadedConfig, id: number): boolean {
  const store = Store.open(loaded.config.state.path);
  try {
    return store.expireSilence(id, Date.now());
  } finally {
    store.close();
  }
}

/** A `validator=` matcher naming no validator of the inventory (a typo): why, or undefined. */
function unknownValidator(loaded: LoadedConfig, matchers: readonly Matcher[]): string | undefined {
  const names = loaded.inventory.map((v) => v.name);
  if (names.length === 0) return undefined;
  const m = matchers.find((x) => x.name === 'validator' && !x.regex && !names.includes(x.value));
  if (m === undefined) return undefined;
  const near = nearest(m.value, names);
  const shown = names.length > 10 ? `${names.slice(0, 10).join(', ')}, …` : names.join(', ');
  return `no validator of the inventory is named "${m.value}"${near ? ` (did you mean ${near}?)` : ''}: the silence would mute nothing. Its validators: ${shown}`;
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}
