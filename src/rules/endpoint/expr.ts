import { createRequire } from 'node:module';
import type Jsonata from 'jsonata';

// JSONata: a query language that cannot reach the process (no eval, no I/O, no JS).
// Each evaluation is bounded by the library's own guardrails: wall time (checked at every
// step), recursion depth and sequence length. A built-in call or a regular expression match
// is not interruptible, and a value can be as large as memory: so evaluation runs in the
// expression process (runner.ts), never in the daemon's own thread; only compiling does.

/** JSONata loads at the first expression: a config with no endpoint rule (and each command run on it) starts without it. */
let library: typeof Jsonata | undefined;
const jsonata = (source: string, options?: Parameters<typeof Jsonata>[1]): Jsonata.Expression => (library ??= createRequire(import.meta.url)('jsonata') as typeof Jsonata)(source, options);

/** Per evaluation: an expression still running after this is abandoned (error D1012). */
export const EVAL_TIMEOUT_MS = 500;
const GUARDS = { timeout: EVAL_TIMEOUT_MS, stack: 300, sequence: 100_000 };

/** Compiled expressions by source; sources come from the config, so the map stays small. */
const compiled = new Map<string, Jsonata.Expression>();
const MAX_COMPILED = 2_000;

export function compile(source: string): Jsonata.Expression {
  let expr = compiled.get(source);
  if (!expr) {
    expr = jsonata(source, GUARDS);
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(source, expr);
  }
  return expr;
}

/** Why a source does not compile, with where in it; undefined when it does. */
export function compileError(source: string): string | undefined {
  try {
    jsonata(source);
    return undefined;
  } catch (err) {
    const e = err as { message?: string; position?: number };
    return `not a valid JSONata expression: ${e.message ?? String(err)}${e.position === undefined ? '' : ` (at character ${e.position})`}`;
  }
}

/** A bare field name: JSONata's own answer is the object's field as it is, when that is a scalar. */
const FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Bare names that JSONata reads as something else. */
const WORDS = new Set(['and', 'or', 'in', 'true', 'false', 'null', 'function']);

/**
 * `nodeId` of an item, without JSONata: a key or field read per item of a 100,000-item page
 * is most of an endpoint rule's work. Anything but an own scalar field goes to JSONata.
 */
function scalarField(source: string, input: unknown): { value: unknown } | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input) || !FIELD.test(source) || WORDS.has(source)) return undefined;
  if (!Object.hasOwn(input, source)) return undefined;
  const value: unknown = (input as Record<string, unknown>)[source];
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)) ? { value } : undefined;
}

/** The result as plain JSON values: JSONata's sequences become arrays. */
export async function evaluate(source: string, input: unknown, bindings: Record<string, unknown>): Promise<unknown> {
  const field = scalarField(source, input);
  if (field) return field.value;
  try {
    return plain(await compile(source).evaluate(input, bindings));
  } catch (err) {
    throw new Error(`expression ${quote(source)}: ${(err as { message?: string }).message ?? String(err)}`, { cause: err });
  }
}

function plain(value: unknown): unknown {
  if (Array.isArray(value)) return Array.from(value, plain);
  return value;
}

// ---- templates: literal text with {expression} placeholders

export type Part = { text: string } | { expr: string };

/** Splits a template at its placeholders; braces inside a placeholder nest, quotes are skipped. */
export function parseTemplate(template: string): Part[] | string {
  const parts: Part[] = [];
  let text = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c !== '{') {
      text += c;
      continue;
    }
    const end = closing(template, i);
    if (end === undefined) return `a "{" at character ${i} is never closed`;
    if (text) parts.push({ text });
    text = '';
    parts.push({ expr: template.slice(i + 1, end) });
    i = end;
  }
  if (text) parts.push({ text });
  return parts;
}

function closing(s: string, open: number): number | undefined {
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'" || c === '`') quote = c;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return undefined;
}

/** Why a template cannot render: an unclosed or empty placeholder, or one that does not compile. */
export function templateErrors(source: string): string[] {
  const parts = parseTemplate(source);
  if (typeof parts === 'string') return [`template: ${parts}`];
  const errors: string[] = [];
  for (const p of parts) {
    if (!('expr' in p)) continue;
    const error = p.expr.trim() === '' ? 'an empty placeholder {}' : compileError(p.expr);
    if (error) errors.push(`placeholder {${p.expr}}: ${error}`);
  }
  return errors;
}

/** Longest text one placeholder, and one rendered line, may show: chain text can be any size. */
const MAX_VALUE_CHARS = 200;
export const MAX_LINE_CHARS = 500;

export async function render(source: string, input: unknown, bindings: Record<string, unknown>): Promise<string> {
  const parts = parseTemplate(source);
  if (typeof parts === 'string') throw new Error(parts);
  let out = '';
  for (const p of parts) out += 'text' in p ? p.text : show(await evaluate(p.expr, input, bindings));
  return oneLine(out, MAX_LINE_CHARS);
}

/** A value as a person reads it in one line: text as it is, anything else as JSON. */
export function show(value: unknown, max = MAX_VALUE_CHARS): string {
  if (value === undefined) return '(none)';
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return oneLine(text, max);
}

/** Kept as data: control characters and line breaks become spaces, and it is cut at `max`. */
export function oneLine(text: string, max: number): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what goes
  const flat = text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function quote(source: string): string {
  return JSON.stringify(oneLine(source, 80));
}
