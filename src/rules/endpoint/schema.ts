import { z } from 'zod';
import { durationMs } from '../../base/fields.js';
import { compileError, templateErrors } from './expr.js';
import { paramError, pathError, placeholders } from './path.js';

/** A JSONata expression in a rule: compiled when the file is loaded, so a typo is a `check` error at its own line. */
const expression = z
  .string()
  .min(1, 'an empty expression')
  .superRefine((source, ctx) => {
    const error = compileError(source);
    if (error) ctx.addIssue({ code: 'custom', message: error });
  });

/** A summary template: every placeholder must compile. */
const template = z.string().superRefine((source, ctx) => {
  for (const message of templateErrors(source)) ctx.addIssue({ code: 'custom', message });
});

export const MODES = ['new', 'condition', 'change'] as const;

/** A 90,000-item page reads in a few seconds; a runaway holds the expression process no longer than this. */
export const DEFAULT_EXPRESSION_TIMEOUT_MS = 10_000;

const scalar = z.union([z.string(), z.number(), z.boolean()]).transform(String);

export const spec = z
  .strictObject({
    /** A GET path of the Data API or the Metrics API, with {placeholders} filled from params. */
    path: z.string().superRefine((p, ctx) => {
      const error = pathError(p);
      if (error) ctx.addIssue({ code: 'custom', message: error });
    }),
    params: z.record(z.string(), scalar.refine((v) => paramError(v) === undefined, { error: (i) => paramError(String(i.input)) ?? 'invalid' })).default({}),
    /** Query parameters; pageToken is the rule's own. */
    query: z.record(z.string(), scalar).default({}),
    /** Where the list is in an answer (JSONata): its field (`tokens`), or a path or expression to it. */
    items: expression,
    /** Which items count (JSONata, on the item): those for which it is true; the others are not listed. */
    filter: expression.optional(),
    /** What identifies an item (JSONata, on the item): a string or a number. */
    key: expression,
    mode: z.enum(MODES),
    /** condition mode: firing per item while this is true (JSONata, on the item). */
    condition: expression.optional(),
    /** change mode: an event when this value of an item changes (JSONata, on the item). */
    field: expression.optional(),
    /** The alert's text per item: literal text with {JSONata} placeholders. */
    summary: template.optional(),
    /** condition mode: the text when it stops holding (rendered while it fires). */
    resolvedSummary: template.optional(),
    /** Extra facts shown under the summary: name → JSONata on the item. */
    details: z.record(z.string().min(1), expression).optional(),
    /** Pages read per evaluation, newest first where the endpoint sorts. */
    maxPages: z.number().int().min(1).max(100).default(5),
    /** Items remembered (seen keys, values, firing items); the least recently seen go first. */
    maxItems: z.number().int().min(1).max(100_000).default(1_000),
    /** All the JSONata work of one evaluation (every page); past it the expression process is stopped. */
    expressionTimeout: durationMs.refine((ms) => ms >= 1_000 && ms <= 300_000, 'between 1s and 5m').default(DEFAULT_EXPRESSION_TIMEOUT_MS),
  })
  .superRefine((s, ctx) => {
    if (pathError(s.path) === undefined) {
      const wanted = placeholders(s.path);
      for (const name of wanted) if (!(name in s.params)) ctx.addIssue({ code: 'custom', path: ['path'], message: `placeholder {${name}} has no value under params` });
      for (const name of Object.keys(s.params)) if (!wanted.includes(name)) ctx.addIssue({ code: 'custom', path: ['params', name], message: `the path has no {${name}}` });
    }
    if ('pageToken' in s.query) ctx.addIssue({ code: 'custom', path: ['query', 'pageToken'], message: 'pageToken is set by the rule as it reads the pages' });
    const only = (key: 'condition' | 'field' | 'resolvedSummary', mode: (typeof MODES)[number]): void => {
      if (s[key] !== undefined && s.mode !== mode) ctx.addIssue({ code: 'custom', path: [key], message: `${key} belongs to mode: ${mode}` });
    };
    only('condition', 'condition');
    only('resolvedSummary', 'condition');
    only('field', 'change');
    if (s.mode === 'condition' && s.condition === undefined) ctx.addIssue({ code: 'custom', path: ['condition'], message: 'mode: condition needs a condition (a JSONata expression on the item)' });
    if (s.mode === 'change' && s.field === undefined) ctx.addIssue({ code: 'custom', path: ['field'], message: 'mode: change needs a field (a JSONata expression on the item)' });
  });
export type Spec = z.output<typeof spec>;

const firing = z.object({ summary: z.string(), resolvedSummary: z.string(), details: z.record(z.string(), z.string()) });

/** One item the rule remembers: when it was first and last listed, its watched value, and what fires for it. */
const item = z.object({
  first: z.number(),
  last: z.number(),
  /** change mode: the field's value as JSON ('' when it had none). */
  value: z.string().optional(),
  /** condition mode: the condition held at the last read; what its alert says. */
  firing: firing.optional(),
});
/** The marker of a rule that has read once (its baseline), with how many items it read last. */
const marker = z.object({ baseline: z.literal(true), read: z.number() });
export const state = z.union([marker, item]);
export type State = z.output<typeof state>;
export type ItemState = z.output<typeof item>;
export type Firing = z.output<typeof firing>;
export const BASELINE_KEY = 'baseline';
export const ITEM_PREFIX = 'item:';

export function itemState(st: State | undefined): ItemState | undefined {
  return st && 'last' in st ? st : undefined;
}
