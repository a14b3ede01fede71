// A simulated node's health checks as AvalancheGo's api/health workers hold them (v1.14.2,
// api/health/worker.go): each check runs every 30 s (--health-check-frequency) from the
// node's start; a failing check counts its failing runs (contiguousFailures) from the first;
// the `avalanche_health_checks_failing{check,tag}` gauges count failing checks per worker and
// tag. A change of state shows at once, as a run at that moment would (tests need no wait).

/** --health-check-frequency's default. */
export const CHECK_RUN_MS = 30_000;
/** health.ApplicationTag: node-wide checks, always reported whatever tags are asked. */
export const APPLICATION_TAG = 'application';
export const ALL_TAG = 'all';

/** A registered check: its name, and its tags (a chain's check carries its subnet ID). */
export interface CheckSpec {
  name: string;
  /** Tagged application (node-wide), else with the given tags. */
  application: boolean;
  tags: string[];
}

export interface Failure {
  error: string;
  details?: unknown;
  /** Simulated ms the failing run that started it ended. */
  since: number;
}

/** The newest run at or before `now` (runs at start, start + 30 s, …). */
export function lastRun(startedAt: number, now: number): number {
  return startedAt + Math.floor(Math.max(0, now - startedAt) / CHECK_RUN_MS) * CHECK_RUN_MS;
}

/** Failing runs from the one at `since` to now: that one, plus every scheduled run after it. */
export function failingRuns(startedAt: number, since: number, now: number): number {
  const runsSince = (t: number) => Math.floor(Math.max(0, t - startedAt) / CHECK_RUN_MS);
  return 1 + Math.max(0, runsSince(now) - runsSince(since));
}

/** worker.Results: with no tags every check; else those with one of the tags, and the application checks always. */
export function selectChecks(specs: CheckSpec[], tags: string[]): CheckSpec[] {
  if (tags.length === 0 || tags.includes(ALL_TAG)) return specs;
  return specs.filter((s) => s.application || s.tags.some((t) => tags.includes(t)));
}

/**
 * worker.updateMetrics, summed: `all` counts every failing check, `application` the failing
 * application checks, a subnet's tag its failing checks plus every failing application check.
 */
export function failingGauges(specs: CheckSpec[], failing: (name: string) => boolean): Map<string, number> {
  const gauges = new Map<string, number>([
    [ALL_TAG, 0],
    [APPLICATION_TAG, 0],
  ]);
  for (const s of specs) for (const t of s.tags) gauges.set(t, 0);
  for (const s of specs) {
    if (!failing(s.name)) continue;
    if (s.application) for (const tag of gauges.keys()) gauges.set(tag, (gauges.get(tag) ?? 0) + 1);
    else for (const tag of [ALL_TAG, ...s.tags]) gauges.set(tag, (gauges.get(tag) ?? 0) + 1);
  }
  return gauges;
}
