import { apiCall } from '../../api/catalog.js';
import { ApiError } from '../../api/errors.js';
import { collectPages } from '../../api/paginate.js';
import { record } from '../../record.js';
import type { AlertDraft, Condition, GaugeSample, RuleKind } from '../types.js';
import { evaluate, oneLine, render, show } from './expr.js';
import { apiOf, fillPath } from './path.js';
import { BASELINE_KEY, ITEM_PREFIX, spec, state, type Firing, type ItemState, type Spec, type State } from './schema.js';

/** One item as read: its key, what the mode watches, and the alert's text where it alerts. */
export interface ItemRead {
  key: string;
  /** change mode: the field's value as JSON ('' when it has none). */
  value?: string;
  /** condition mode: whether the condition holds. */
  holds?: boolean;
  /** Rendered for an item that alerts or fires. */
  text?: Firing;
}

export interface Observation {
  /** Items in the order listed (newest first where the endpoint sorts); an error fails its item only. */
  items: Array<ItemRead | { key: string; error: string }>;
  /** Every page was read and every item identified: an item not listed is gone. */
  complete: boolean;
  /** Items that could not even be identified (their key failed), by position. */
  failed: Record<string, string>;
}

interface Listed {
  item: unknown;
  /** Undefined: the item could not be identified (then `error` says why). */
  key?: string;
  error?: string;
  /** The filter left it out. */
  skip?: boolean;
}

/** Key and text shown of one item: chain text, so bounded. */
const MAX_KEY_CHARS = 100;

export const endpoint: RuleKind<Spec, Observation, State> = {
  kind: 'endpoint',
  spec: spec as unknown as RuleKind<Spec, Observation, State>['spec'],
  state,
  gauges: [
    { name: 'avawatch_endpoint_items', help: 'Items an endpoint rule read at its last evaluation.', labelNames: ['rule'] },
    { name: 'avawatch_endpoint_condition_items', help: "Items for which an endpoint rule's condition holds (condition mode).", labelNames: ['rule'] },
  ],

  async observe(s, { data, metrics, signal, previous, now }) {
    const prev = previous as Readonly<Record<string, State>>;
    const baselined = prev[BASELINE_KEY] !== undefined;
    const path = fillPath(s.path, s.params);
    const api = apiOf(path);
    const http = api === 'metrics' ? metrics.http : data.http;
    const query = queryOf(s, api, data.options.pageSize);
    const bindings = { time: Math.floor(now.getTime() / 1000), params: s.params, path };
    let complete = true;
    const known = (l: Listed) => l.key !== undefined && !l.skip && prev[ITEM_PREFIX + l.key] !== undefined;
    const listed = await collectPages<Listed>(
      async (pageToken) => {
        const body = await http.getJson({ endpoint: s.path, path, query: { ...query, pageToken }, signal });
        const items = await itemsOf(s, body, bindings, api, path);
        const page: Listed[] = [];
        for (const item of items) page.push(await identify(s, item, bindings));
        const next = (body as { nextPageToken?: unknown }).nextPageToken;
        return { items: page, nextPageToken: typeof next === 'string' ? next : undefined };
      },
      {
        api,
        endpoint: `GET ${path}`,
        maxPages: s.maxPages,
        stopAtMax: true,
        onTruncated: () => (complete = false),
        // Newest first: once a page lists an item already seen, the new ones are all read.
        ...(s.mode === 'new' && baselined ? { enough: (page: readonly Listed[]) => page.some(known) } : {}),
      },
    );
    const failed = record<string>();
    const items: Observation['items'] = [];
    let firstError: string | undefined;
    for (const [i, l] of listed.entries()) {
      if (l.key === undefined) {
        failed[`item #${i + 1}`] = l.error ?? 'no key';
        firstError ??= l.error;
        complete = false; // an item not identified may be one tracked: nothing is read as gone
        continue;
      }
      if (l.skip) continue;
      const read = l.error === undefined ? await attemptItem(s, l.item, l.key, prev, baselined, { ...bindings, key: l.key }) : { key: l.key, error: l.error };
      if ('error' in read) firstError ??= read.error;
      items.push(read);
    }
    // Every item failed: the rule saw nothing it can judge.
    if (listed.length > 0 && firstError !== undefined && items.every((r) => 'error' in r)) throw new Error(`GET ${path}: every item failed: ${firstError}`);
    return { items, complete, failed };
  },

  evaluate(previous, observation, now, s) {
    const nowS = Math.floor(now.getTime() / 1000);
    const baselined = previous[BASELINE_KEY] !== undefined;
    const states = record<State>();
    const alerts: AlertDraft[] = [];
    const failed = record(Object.entries(observation.failed));
    // A Set, not a list: a page may hold 90,000 items.
    const seen = new Set<string>();
    for (const read of observation.items) {
      const id = ITEM_PREFIX + read.key;
      if (seen.has(id) || states[id]) continue; // listed twice (pages shifting): first wins
      const before = itemState(previous[id]);
      if ('error' in read) {
        if (before) states[id] = before;
        failed[read.key] = read.error;
        continue;
      }
      seen.add(id);
      const st: ItemState = { first: before?.first ?? nowS, last: nowS };
      if (read.value !== undefined) st.value = read.value;
      if (read.holds && read.text) st.firing = read.text;
      states[id] = st;
      if (s.mode === 'new' && baselined && !before && read.text) alerts.push(event(read.key, read.text, s));
      if (s.mode === 'change' && before?.value !== undefined && before.value !== read.value && read.text) alerts.push(event(read.key, read.text, s));
    }
    // Not listed: gone when the list was read whole, else as it was. Seen keys stay, to know them again.
    const kept: Array<[string, ItemState]> = [];
    for (const [id, st] of Object.entries(previous)) {
      const item = itemState(st);
      if (!item || states[id]) continue;
      if (s.mode === 'new' || !observation.complete) kept.push([id, item]);
    }
    // Bounded: what this read listed first, then the most recently listed.
    kept.sort((a, b) => b[1].last - a[1].last);
    const room = Math.max(0, s.maxItems - Object.keys(states).length);
    for (const [id, st] of kept.slice(0, room)) states[id] = st;
    states[BASELINE_KEY] = { baseline: true, read: observation.items.length + Object.keys(observation.failed).length };
    const result = { states, alerts, failed };
    if (s.mode !== 'condition') return result;
    const conditions = Object.entries(states).flatMap(([id, st]) => {
      const item = itemState(st);
      return item?.firing ? [condition(id.slice(ITEM_PREFIX.length), item.firing, s)] : [];
    });
    return { ...result, conditions };
  },

  samples(s, states) {
    const marker = states[BASELINE_KEY];
    if (!marker || !('baseline' in marker)) return [];
    const out: GaugeSample[] = [{ metric: 'avawatch_endpoint_items', labels: {}, value: marker.read }];
    if (s.mode === 'condition') out.push({ metric: 'avawatch_endpoint_condition_items', labels: {}, value: Object.values(states).filter((st) => itemState(st)?.firing).length });
    return out;
  },

  describe: (s) => {
    const what = s.mode === 'condition' ? `items where ${s.condition}` : s.mode === 'change' ? `changes of ${s.field}` : 'new items';
    return `${what} in GET ${fillPath(s.path, s.params)}, key ${s.key}`;
  },
  cost(s) {
    const path = fillPath(s.path, s.params);
    const call = apiCall('GET', path, queryOf(s, apiOf(path), 100));
    const more =
      s.mode === 'new'
        ? `the first read lists up to ${s.maxPages} page(s); then further pages, up to ${s.maxPages}, while a page lists no item seen before`
        : `up to ${s.maxPages} page(s) per evaluation`;
    return { calls: [call], more };
  },
};

/** The rule's query: the Data API's lists read full pages unless the rule says otherwise. */
function queryOf(s: Spec, api: 'data' | 'metrics', pageSize: number): Record<string, string> {
  return api === 'data' && s.query['pageSize'] === undefined ? { pageSize: String(pageSize), ...s.query } : { ...s.query };
}

/** The items of one page. A page without its list is a failed read, never "every item gone". */
async function itemsOf(s: Spec, body: unknown, bindings: Record<string, unknown>, api: string, path: string): Promise<unknown[]> {
  const fail = (why: string) => new ApiError(`${api} API ${path}: unexpected response: ${why}`, { api, endpoint: s.path, code: 'schema', retryable: false });
  let items: unknown;
  try {
    items = await evaluate(s.items, body, bindings);
  } catch (err) {
    throw fail(`items: ${(err as Error).message}`);
  }
  if (!Array.isArray(items)) throw fail(`items ${JSON.stringify(s.items)} gave ${kindOf(items)}, not a list`);
  return items;
}

/** An item's key, and whether the filter keeps it; a filter that throws fails the item alone. */
async function identify(s: Spec, item: unknown, bindings: Record<string, unknown>): Promise<Listed> {
  let key: string;
  try {
    const value = await evaluate(s.key, item, bindings);
    if (typeof value === 'number' && Number.isFinite(value)) key = String(value);
    else if (typeof value === 'string') key = value;
    else return { item, error: `key ${JSON.stringify(s.key)} gave ${kindOf(value)}, not a string or a number` };
  } catch (err) {
    return { item, error: (err as Error).message };
  }
  if (s.filter === undefined) return { item, key };
  try {
    const keep = await evaluate(s.filter, item, { ...bindings, key });
    if (keep !== undefined && typeof keep !== 'boolean') return { item, key, error: `filter ${JSON.stringify(s.filter)} gave ${kindOf(keep)}, not true or false` };
    return keep === true ? { item, key } : { item, key, skip: true };
  } catch (err) {
    return { item, key, error: (err as Error).message };
  }
}

/** What the mode needs of one item; an expression that throws fails this item alone. */
async function attemptItem(
  s: Spec,
  item: unknown,
  key: string,
  prev: Readonly<Record<string, State>>,
  baselined: boolean,
  bindings: Record<string, unknown>,
): Promise<ItemRead | { key: string; error: string }> {
  try {
    const before = itemState(prev[ITEM_PREFIX + key]);
    if (s.mode === 'new') return baselined && !before ? { key, text: await texts(s, item, bindings) } : { key };
    if (s.mode === 'condition') {
      const holds = await evaluate(s.condition as string, item, bindings);
      if (holds !== undefined && typeof holds !== 'boolean') throw new Error(`condition ${JSON.stringify(s.condition)} gave ${kindOf(holds)}, not true or false`);
      return holds === true ? { key, holds, text: await texts(s, item, bindings) } : { key, holds: false };
    }
    const after = await evaluate(s.field as string, item, bindings);
    const value = after === undefined ? '' : JSON.stringify(after);
    if (before?.value === undefined || before.value === value) return { key, value };
    const was = before.value === '' ? undefined : (JSON.parse(before.value) as unknown);
    return { key, value, text: await texts(s, item, { ...bindings, before: was, after }) };
  } catch (err) {
    return { key, error: (err as Error).message };
  }
}

/** The alert's texts for one item: the rule's templates, or the defaults (kind, path, key). */
async function texts(s: Spec, item: unknown, b: Record<string, unknown>): Promise<Firing> {
  const key = oneLine(String(b['key']), MAX_KEY_CHARS);
  const where = `${key} in GET ${String(b['path'])}`;
  const change = s.mode === 'change' ? `${show(b['before'])} → ${show(b['after'])}` : '';
  const summary = s.summary
    ? await render(s.summary, item, b)
    : s.mode === 'new'
      ? `New item ${where}`
      : s.mode === 'condition'
        ? `${where}: ${oneLine(s.condition ?? '', 200)}`
        : `${where}: ${oneLine(s.field ?? '', 200)} changed ${change}`;
  const resolvedSummary = s.resolvedSummary ? await render(s.resolvedSummary, item, b) : `${where}: no longer ${oneLine(s.condition ?? '', 200)} (or no longer listed)`;
  const details: Record<string, string> = { Endpoint: `GET ${String(b['path'])}`, Key: key };
  if (s.mode === 'condition') details['Condition'] = oneLine(s.condition ?? '', 500);
  if (s.mode === 'change') Object.assign(details, { Field: oneLine(s.field ?? '', 500), Before: show(b['before']), After: show(b['after']) });
  for (const [name, expr] of Object.entries(s.details ?? {})) details[name] = show(await evaluate(expr, item, b), 500);
  return { summary, resolvedSummary, details };
}

function event(key: string, text: Firing, s: Spec): AlertDraft {
  return { status: 'event', subject: oneLine(key, MAX_KEY_CHARS), summary: text.summary, labels: labelsOf(key, s), details: text.details };
}

function condition(key: string, f: Firing, s: Spec): Condition {
  return { key, subject: oneLine(key, MAX_KEY_CHARS), summary: f.summary, resolvedSummary: f.resolvedSummary, labels: labelsOf(key, s), details: f.details };
}

function labelsOf(key: string, s: Spec): Record<string, string> {
  return { key: oneLine(key, MAX_KEY_CHARS), mode: s.mode };
}

function itemState(st: State | undefined): ItemState | undefined {
  return st && 'last' in st ? st : undefined;
}

function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${oneLine(JSON.stringify(value), 40)}`;
}
