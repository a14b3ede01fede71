import { createHash } from 'node:crypto';
import { evaluate, oneLine, render, show } from './expr.js';
import type { Firing, Spec } from './schema.js';

// All the JSONata of one page of an endpoint rule. Runs in the expression process
// (sandbox.ts): what it returns crosses into the daemon, so every part of it is bounded.

/** The keys of a rule the expressions need. */
export type Rule = Pick<Spec, 'path' | 'items' | 'filter' | 'key' | 'mode' | 'condition' | 'field' | 'summary' | 'resolvedSummary' | 'details'>;

/** Reads every item of a page: its key, whether the filter keeps it, what the mode watches. */
export interface ListRequest {
  op: 'list';
  rule: Rule;
  body: unknown;
  bindings: Record<string, unknown>;
}

/** Renders the alert's texts of the items named (by position in the page). */
export interface TextsRequest {
  op: 'texts';
  rule: Rule;
  body: unknown;
  bindings: Record<string, unknown>;
  wanted: Wanted[];
}

export interface Wanted {
  index: number;
  key: string;
  /** change mode: the value the item had ($before). */
  before?: unknown;
}

/** One item of a page. No key: it could not be identified (`error` says why). */
export interface Entry {
  key?: string;
  error?: string;
  /** The filter leaves it out. */
  skip?: true;
  /** change mode: the field's value as JSON ('' when it has none; a digest when long). */
  value?: string;
  /** condition mode: whether the condition holds, and then the alert's texts. */
  holds?: boolean;
  text?: Firing;
}

/** `fail`: the page has no list where `items` says (a failed read, never "every item gone"). */
export type ListResult = { entries: Entry[] } | { fail: string };
export type TextsResult = { texts: Array<{ text?: Firing; error?: string }> } | { fail: string };

/** Key and text shown of one item: chain text, so bounded. */
export const MAX_KEY_CHARS = 100;
/** A key longer than this is kept as its start and digest: it is an entity id in the state file. */
const MAX_ID_CHARS = 1_000;
/** A watched value longer than this (as JSON) is compared by its digest. */
const MAX_VALUE_CHARS = 10_000;
const MAX_ERROR_CHARS = 500;

export async function listPage(r: ListRequest): Promise<ListResult> {
  const items = await itemsOf(r.rule, r.body, r.bindings);
  if (!Array.isArray(items)) return { fail: items };
  const entries: Entry[] = [];
  for (const item of items) entries.push(await readItem(r.rule, item, r.bindings));
  return { entries };
}

export async function pageTexts(r: TextsRequest): Promise<TextsResult> {
  const items = await itemsOf(r.rule, r.body, r.bindings);
  if (!Array.isArray(items)) return { fail: items };
  const texts: Array<{ text?: Firing; error?: string }> = [];
  for (const w of r.wanted) {
    try {
      const item: unknown = items[w.index];
      if (item === undefined || (await keyOf(r.rule, item, r.bindings)) !== w.key) throw new Error('the page changed between two reads of it');
      const b: Record<string, unknown> = { ...r.bindings, key: w.key };
      if (r.rule.mode === 'change') Object.assign(b, { before: w.before, after: await evaluate(r.rule.field as string, item, b) });
      texts.push({ text: await textsOf(r.rule, item, b) });
    } catch (err) {
      texts.push({ error: errorText(err) });
    }
  }
  return { texts };
}

/** The list in a page, or why there is none. */
async function itemsOf(rule: Rule, body: unknown, bindings: Record<string, unknown>): Promise<unknown[] | string> {
  let items: unknown;
  try {
    items = await evaluate(rule.items, body, bindings);
  } catch (err) {
    return `items: ${errorText(err)}`;
  }
  return Array.isArray(items) ? items : `items ${JSON.stringify(rule.items)} gave ${kindOf(items)}, not a list`;
}

/** An expression that throws, or gives what the mode cannot use, fails this item alone. */
async function readItem(rule: Rule, item: unknown, bindings: Record<string, unknown>): Promise<Entry> {
  let key: string;
  try {
    key = await keyOf(rule, item, bindings);
  } catch (err) {
    return { error: errorText(err) };
  }
  const b = { ...bindings, key };
  try {
    if (rule.filter !== undefined) {
      const keep = await evaluate(rule.filter, item, b);
      if (keep !== undefined && typeof keep !== 'boolean') throw new Error(`filter ${JSON.stringify(rule.filter)} gave ${kindOf(keep)}, not true or false`);
      if (keep !== true) return { key, skip: true };
    }
    if (rule.mode === 'new') return { key };
    if (rule.mode === 'condition') {
      const holds = await evaluate(rule.condition as string, item, b);
      if (holds !== undefined && typeof holds !== 'boolean') throw new Error(`condition ${JSON.stringify(rule.condition)} gave ${kindOf(holds)}, not true or false`);
      return holds === true ? { key, holds, text: await textsOf(rule, item, b) } : { key, holds: false };
    }
    return { key, value: valueText(await evaluate(rule.field as string, item, b)) };
  } catch (err) {
    return { key, error: errorText(err) };
  }
}

async function keyOf(rule: Rule, item: unknown, bindings: Record<string, unknown>): Promise<string> {
  const value = await evaluate(rule.key, item, bindings);
  const key = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof key !== 'string') throw new Error(`key ${JSON.stringify(rule.key)} gave ${kindOf(value)}, not a string or a number`);
  // Any text the contract allows identifies its item; a long one by its start and digest (still one id per item).
  if (key.length <= MAX_ID_CHARS) return key;
  return `${key.slice(0, 100)}… sha256:${createHash('sha256').update(key).digest('hex')}`;
}

/** A value as compared between reads: its JSON, or the digest of a long one (a JSON text never starts with "sha256:"). */
function valueText(value: unknown): string {
  if (value === undefined) return '';
  const json = JSON.stringify(value);
  if (json.length <= MAX_VALUE_CHARS) return json;
  return `sha256:${createHash('sha256').update(json).digest('hex')} (${json.length} characters)`;
}

/** The alert's texts for one item: the rule's templates, or the defaults (kind, path, key). */
async function textsOf(rule: Rule, item: unknown, b: Record<string, unknown>): Promise<Firing> {
  const key = oneLine(String(b['key']), MAX_KEY_CHARS);
  const where = `${key} in GET ${String(b['path'])}`;
  const change = rule.mode === 'change' ? `${show(b['before'])} → ${show(b['after'])}` : '';
  const summary = rule.summary
    ? await render(rule.summary, item, b)
    : rule.mode === 'new'
      ? `New item ${where}`
      : rule.mode === 'condition'
        ? `${where}: ${oneLine(rule.condition ?? '', 200)}`
        : `${where}: ${oneLine(rule.field ?? '', 200)} changed ${change}`;
  const resolvedSummary = rule.resolvedSummary ? await render(rule.resolvedSummary, item, b) : `${where}: no longer ${oneLine(rule.condition ?? '', 200)} (or no longer listed)`;
  const details: Record<string, string> = { Endpoint: `GET ${String(b['path'])}`, Key: key };
  if (rule.mode === 'condition') details['Condition'] = oneLine(rule.condition ?? '', 500);
  if (rule.mode === 'change') Object.assign(details, { Field: oneLine(rule.field ?? '', 500), Before: show(b['before']), After: show(b['after']) });
  for (const [name, expr] of Object.entries(rule.details ?? {})) details[name] = show(await evaluate(expr, item, b), 500);
  return { summary, resolvedSummary, details };
}

/** An error's message, bounded: `$error()` can make one of any size from chain text. */
function errorText(err: unknown): string {
  return oneLine(err instanceof Error ? err.message : String(err), MAX_ERROR_CHARS);
}

export function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${oneLine(JSON.stringify(value), 40)}`;
}
