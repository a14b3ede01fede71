import { ApiError } from '../../api/errors.js';
import type { Rule, Wanted } from './read.js';
import type { Budget, ExpressionRunner } from './runner.js';
import { ITEM_PREFIX, itemState, type Firing, type Spec, type State } from './schema.js';


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

/** One item of a page. No key: it could not be identified (`error` says why). */
export interface Listed {
  key?: string;
  error?: string;
  /** The filter left it out. */
  skip?: boolean;
  read?: ItemRead;
}

export interface PageContext {
  spec: Spec;
  bindings: Record<string, unknown>;
  prev: ReadonlyMap<string, State>;
  baselined: boolean;
  budget: Budget;
  signal: AbortSignal;
  api: string;
  path: string;
  /** The rule's own expression process (runner.ts). */
  expressions: ExpressionRunner;
}

/**
 * Every item of a page, read in the expression process: first what the mode watches, then
 * the texts of the items that alert (new, changed; those that hold come with the first).
 */
export async function readPage(c: PageContext, body: unknown): Promise<Listed[]> {
  const { spec: s, bindings } = c;
  const rule: Rule = { path: s.path, items: s.items, filter: s.filter, key: s.key, mode: s.mode, condition: s.condition, field: s.field, summary: s.summary, resolvedSummary: s.resolvedSummary, details: s.details };
  const listed = await c.expressions.run({ op: 'list', rule, body, bindings }, c.budget, c.signal);
  if ('fail' in listed) throw unexpected(c, listed.fail);
  const wanted: Wanted[] = [];
  const page = listed.entries.map((e, index): Listed => {
    if (e.key === undefined) return { error: e.error ?? 'no key' };
    if (e.skip) return { key: e.key, skip: true };
    if (e.error !== undefined) return { key: e.key, error: e.error };
    // What the item was matters only to new (after the baseline) and change: condition mode skips the lookup.
    const before = s.mode === 'change' || (s.mode === 'new' && c.baselined) ? itemState(c.prev.get(ITEM_PREFIX + e.key)) : undefined;
    if (s.mode === 'new' && c.baselined && !before) wanted.push({ index, key: e.key });
    if (s.mode === 'change' && before?.value !== undefined && before.value !== e.value) wanted.push({ index, key: e.key, before: valueOf(before.value) });
    const read: ItemRead = { key: e.key };
    if (e.value !== undefined) read.value = e.value;
    if (e.holds !== undefined) read.holds = e.holds;
    if (e.text) read.text = e.text;
    return { key: e.key, read };
  });
  if (wanted.length === 0) return page;
  const rendered = await c.expressions.run({ op: 'texts', rule, body, bindings, wanted }, c.budget, c.signal);
  if ('fail' in rendered) throw unexpected(c, rendered.fail);
  for (const [i, w] of wanted.entries()) {
    const t = rendered.texts[i];
    const read = page[w.index]?.read;
    if (t?.text && read) read.text = t.text;
    else page[w.index] = { key: w.key, error: t?.error ?? 'no text' };
  }
  return page;
}

/** A value as stored: JSON, '' for none, or the digest of a long one. */
function valueOf(stored: string): unknown {
  if (stored === '') return undefined;
  if (stored.startsWith('sha256:')) return stored;
  return JSON.parse(stored) as unknown;
}

/** A page without its list is a failed read, never "every item gone". */
function unexpected(c: PageContext, why: string): ApiError {
  return new ApiError(`${c.api} API ${c.path}: unexpected response: ${why}`, { api: c.api, endpoint: c.spec.path, code: 'schema', retryable: false });
}
