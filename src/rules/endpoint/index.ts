import { apiCall } from '../../api/catalog.js';
import { collectPages } from '../../api/paginate.js';
import { record } from '../../base/record.js';
import type { AlertDraft, Condition, GaugeSample, RuleKind } from '../types.js';
import { oneLine } from './expr.js';
import { readPage, type ItemRead, type Listed } from './page.js';
import { apiOf, fillPath } from './path.js';
import { MAX_KEY_CHARS } from './read.js';
import { budget } from './runner.js';
import { BASELINE_KEY, ITEM_PREFIX, itemState, spec, state, type Firing, type ItemState, type Spec, type State } from './schema.js';

export type { ItemRead } from './page.js';

export interface Observation {
  /** Items in the order listed (newest first where the endpoint sorts); an error fails its item only. */
  items: Array<ItemRead | { key: string; error: string }>;
  /** Every page was read and every item identified: an item not listed is gone. */
  complete: boolean;
  /** Items that could not even be identified (their key failed), by position. */
  failed: Record<string, string>;
}

/** `last` moves by the hour: an item listed at every read keeps its stored row, not rewrites it (90,000 rows a read). */
const LAST_STEP_S = 3_600;

export const endpoint: RuleKind<Spec, Observation, State> = {
  kind: 'endpoint',
  keyDetails: ['After'],
  labelNames: ['key', 'mode'],
  spec: spec as unknown as RuleKind<Spec, Observation, State>['spec'],
  state,
  gauges: [
    { name: 'avawatch_endpoint_items', help: 'Items an endpoint rule read (after its filter) at its last evaluation.', labelNames: ['rule'] },
    { name: 'avawatch_endpoint_condition_items', help: "Items for which an endpoint rule's condition holds (condition mode).", labelNames: ['rule'] },
  ],

  async observe(s, { data, metrics, signal, previous, now, expressions }) {
    if (!expressions) throw new Error('an endpoint rule needs an expression process (the engine gives each rule one)');
    const prev = previous as ReadonlyMap<string, State>;
    const baselined = prev.get(BASELINE_KEY) !== undefined;
    const path = fillPath(s.path, s.params);
    const api = apiOf(path);
    const http = api === 'metrics' ? metrics.http : data.http;
    const query = queryOf(s, api, data.options.pageSize);
    const bindings = { time: Math.floor(now.getTime() / 1000), params: s.params, path };
    let complete = true;
    const known = (l: Listed) => l.key !== undefined && !l.skip && prev.get(ITEM_PREFIX + l.key) !== undefined;
    // The JSONata of every page, together, may take expressionTimeout.
    const reading = { spec: s, bindings, prev, baselined, budget: budget(s.expressionTimeout), signal, api, path, expressions };
    const listed = await collectPages<Listed>(
      async (pageToken) => {
        const body = await http.getJson({ endpoint: s.path, path, query: { ...query, pageToken }, signal });
        const items = await readPage(reading, body);
        const next = (body as { nextPageToken?: unknown }).nextPageToken;
        return { items, nextPageToken: typeof next === 'string' ? next : undefined };
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
      if (l.read) {
        items.push(l.read);
        continue;
      }
      const error = l.error ?? 'not read';
      firstError ??= error;
      items.push({ key: l.key, error });
    }
    // Every item failed: the rule saw nothing it can judge.
    if (listed.length > 0 && firstError !== undefined && items.every((r) => 'error' in r)) throw new Error(`GET ${path}: every item failed: ${firstError}`);
    return { items, complete, failed };
  },

  evaluate(previous, observation, now, s) {
    const nowS = Math.floor(now.getTime() / 1000);
    const baselined = previous.get(BASELINE_KEY) !== undefined;
    const states = new Map<string, State>();
    const alerts: AlertDraft[] = [];
    const conditions: Condition[] = [];
    const failed = record(Object.entries(observation.failed));
    // The ids in `states`, as a Set: one lookup per item, as a page may hold 90,000 of them.
    const seen = new Set<string>();
    const keep = (id: string, st: ItemState): void => {
      states.set(id, st);
      seen.add(id);
      if (st.firing) conditions.push(condition(id.slice(ITEM_PREFIX.length), st.firing, s));
    };
    for (const read of observation.items) {
      const id = ITEM_PREFIX + read.key;
      if (seen.has(id)) continue; // listed twice (pages shifting): first wins
      const before = itemState(previous.get(id));
      if ('error' in read) {
        if (before) keep(id, before);
        failed[read.key] = read.error;
        continue;
      }
      const st: ItemState = { first: before?.first ?? nowS, last: before && nowS - before.last < LAST_STEP_S ? before.last : nowS };
      if (read.value !== undefined) st.value = read.value;
      if (read.holds && read.text) st.firing = read.text;
      keep(id, st);
      if (s.mode === 'new' && baselined && !before && read.text) alerts.push(event(read.key, read.text, s));
      if (s.mode === 'change' && before?.value !== undefined && before.value !== read.value && read.text) alerts.push(event(read.key, read.text, s));
    }
    // Not listed: gone when the list was read whole, else as it was. Seen keys stay, to know them again.
    if (s.mode === 'new' || !observation.complete) {
      const kept: Array<[string, ItemState]> = [];
      for (const [id, st] of previous) {
        const item = itemState(st);
        if (item && !seen.has(id)) kept.push([id, item]);
      }
      // Bounded: what this read listed first, then the most recently listed.
      kept.sort((a, b) => b[1].last - a[1].last);
      for (const [id, st] of kept.slice(0, Math.max(0, s.maxItems - seen.size))) keep(id, st);
    }
    states.set(BASELINE_KEY, { baseline: true, read: observation.items.length + Object.keys(observation.failed).length });
    const result = { states, alerts, failed };
    return s.mode === 'condition' ? { ...result, conditions } : result;
  },

  samples(s, states) {
    const marker = states.get(BASELINE_KEY);
    if (!marker || !('baseline' in marker)) return [];
    const out: GaugeSample[] = [{ metric: 'avawatch_endpoint_items', labels: {}, value: marker.read }];
    if (s.mode === 'condition') out.push({ metric: 'avawatch_endpoint_condition_items', labels: {}, value: [...states.values()].filter((st) => itemState(st)?.firing).length });
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

function event(key: string, text: Firing, s: Spec): AlertDraft {
  return { status: 'event', subject: oneLine(key, MAX_KEY_CHARS), summary: text.summary, labels: labelsOf(key, s), details: text.details };
}

function condition(key: string, f: Firing, s: Spec): Condition {
  return { key, subject: oneLine(key, MAX_KEY_CHARS), summary: f.summary, resolvedSummary: f.resolvedSummary, labels: labelsOf(key, s), details: f.details };
}

function labelsOf(key: string, s: Spec): Record<string, string> {
  return { key: oneLine(key, MAX_KEY_CHARS), mode: s.mode };
}
