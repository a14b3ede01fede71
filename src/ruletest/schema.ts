import { z } from 'zod';
import { labels } from '../base/fields.js';
import { worldChange } from '../sim/scenario.js';
import { SEVERITIES } from '../base/types.js';

const offset = z.union([z.string(), z.number()]).transform(String);

export const expectedAlert = z.strictObject({
  rule: z.string(),
  status: z.enum(['firing', 'resolved', 'event']),
  severity: z.enum(SEVERITIES).optional(),
  subject: z.string().optional(),
  /** The whole summary, or /a regex/. */
  summary: z.string().optional(),
  /** Every label given must match; others may be present. */
  labels: labels.optional(),
});
export type ExpectedAlert = z.output<typeof expectedAlert>;

/** A canned answer for the next request whose path contains `path` (a recorded response). */
const response = z.strictObject({
  path: z.string(),
  status: z.number().int().default(200),
  body: z.unknown(),
});

export const step = z.strictObject({
  /** Simulated time of this step, relative to `start` (`0s`, `+1m`, `2h`). */
  at: offset,
  /** Restart the daemon before evaluating: a new process on the same state file. */
  restart: z.boolean().default(false),
  change: worldChange.optional(),
  responses: z.array(response).default([]),
  /** Rules whose evaluation is expected to fail at this step (no state change, no alert). */
  failing: z.array(z.string()).default([]),
  expect: z.array(expectedAlert).default([]),
});

export const ruleTestSchema = z.strictObject({
  ruleFiles: z.array(z.string()).min(1),
  /** The inventory the rules select from (the config's `validators:`), as written there; `api: sim` reads the simulated node of its NodeID. */
  validators: z.array(z.record(z.string(), z.unknown())).optional(),
  start: z.string().default('2026-01-01T00:00:00Z'),
  world: worldChange.default({}),
  steps: z.array(step).min(1),
});
export type RuleTest = z.output<typeof ruleTestSchema>;
