/** [seconds, counter value with every reset added back]: never decreases. */
export type Point = [number, number];

/** Points kept per series: past it the window's inner points are thinned (no increase is lost). */
const MAX_POINTS = 240;

export interface Counter {
  points: Point[];
  raw: number;
}

/**
 * The counter after one more read. A value under the last one is a reset (the node restarted):
 * as Prometheus' rate() does, the counter is taken to have restarted from 0, so all of the new
 * value is increase. Kept: the points within the window and the newest one before it, which
 * anchors the window's start.
 */
export function advanceCounter(before: Counter | undefined, t: number, raw: number, windowS: number): Counter {
  const last = before?.points.at(-1);
  if (!before || !last) return { points: [[t, raw]], raw };
  if (t <= last[0]) return before; // read at the same instant again
  const increase = raw >= before.raw ? raw - before.raw : raw;
  const points: Point[] = [...before.points, [t, last[1] + increase]];
  const start = t - windowS;
  let first = 0;
  while (first + 1 < points.length && (points[first + 1] as Point)[0] <= start) first++;
  return { points: thin(points.slice(first)), raw };
}

/** Per second over the window, or undefined until the points reach back to its start. */
export function rateOf(c: Counter, now: number, windowS: number): number | undefined {
  const first = c.points[0];
  const last = c.points.at(-1);
  if (!first || !last || first[0] > now - windowS || last[0] <= first[0]) return undefined;
  return (last[1] - first[1]) / (last[0] - first[0]);
}

function thin(points: Point[]): Point[] {
  if (points.length <= MAX_POINTS) return points;
  // Every other inner point: the first (the anchor) and the last stay.
  return points.filter((_, i) => i === 0 || i === points.length - 1 || i % 2 === 0);
}
