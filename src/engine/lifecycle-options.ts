import type { LifecycleOptions } from '../alerts/lifecycle.js';
import type { Pipeline } from '../alerts/pipeline/index.js';
import { periodMs } from '../base/schedule.js';
import type { LoadedRule } from '../config/load.js';
import { ruleKind } from '../rules/registry.js';

/** How a rule's state alerts move: `for:`, keepFiringFor and reminders, on the steady clock. */
export function lifecycleOptions(rule: LoadedRule, pipeline: Pipeline): LifecycleOptions {
  // A kind with its own `for` (metric-threshold's series window) already waits in the series.
  const ownFor = ruleKind(rule.kind).ownsFor === true;
  // `for` counts a poll within half an interval (jitter never costs one more poll).
  const pollMs = periodMs(rule.schedule);
  return {
    forMs: ownFor ? 0 : (rule.for ?? 0),
    ...(pollMs === undefined ? {} : { pollMs }),
    keepFiringForMs: rule.keepFiringFor ?? 0,
    // The shortest interval among the condition's receivers; each then filters for its own.
    repeatMs: (c) => pipeline.repeatMs(rule, c.labels),
    sendResolved: rule.sendResolved ?? true,
  };
}

/** avawatch's own alerts (a cause's, an incident's): sent at once, resolved as soon as they stop holding. */
export function ownOptions(rule: LoadedRule, pipeline: Pipeline): LifecycleOptions {
  return { forMs: 0, keepFiringForMs: 0, repeatMs: (c) => pipeline.repeatMs(rule, c.labels), sendResolved: true };
}
