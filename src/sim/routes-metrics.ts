import { METRICS, supportedIntervals, TIME_INTERVALS, type MetricName, type TimeInterval } from '../api/catalog.js';
import { error, isReply, ok, paginate, type Handler, type SimArea } from './http.js';

const DEFAULT_SPAN = { hour: 100 * 3600, day: 100 * 86_400, week: 100 * 604_800, month: 100 * 2_678_400 } as const;

const chainMetric: Handler = (ctx) => {
  const [chainId = '', metric = ''] = ctx.params.map(decodeURIComponent);
  if (!(METRICS as readonly string[]).includes(metric)) return error(400, [`metric must be one of the following values: ${METRICS.join(', ')}`]);
  const q = ctx.url.searchParams;
  const interval = (q.get('timeInterval') ?? 'day') as TimeInterval;
  if (!TIME_INTERVALS.includes(interval)) return error(400, [`timeInterval must be one of the following values: ${TIME_INTERVALS.join(', ')}`]);
  if (!supportedIntervals(metric as MetricName).includes(interval)) return error(400, `${metric} only supports timeInterval=day`);
  const now = ctx.world.clock.now();
  const end = q.has('endTimestamp') ? Number(q.get('endTimestamp')) : now;
  const start = q.has('startTimestamp') ? Number(q.get('startTimestamp')) : end - DEFAULT_SPAN[interval];
  if (![start, end].every((n) => Number.isInteger(n) && n >= 0)) return error(400, ['startTimestamp and endTimestamp must be integers >= 0']);
  const result = paginate(ctx, ctx.world.metricPoints(chainId, metric, interval, start, end), { min: 1, max: 2160, def: 100 });
  if (isReply(result)) return result;
  return ok({ results: result.page, ...(result.nextPageToken ? { nextPageToken: result.nextPageToken } : {}) });
};

const legacyAvgTps: Handler = (ctx) => {
  const now = ctx.world.clock.now();
  const points = ctx.world.metricPoints(decodeURIComponent(ctx.params[0] ?? ''), 'avgTps', 'day', now - 30 * 86_400, now);
  return ok({ results: points, status: 200, lastRun: now });
};

/** The Metrics API's chain metrics and the legacy average TPS. */
export const metricsArea: SimArea = { name: 'metrics', routes: [
  ['GET', /^\/v2\/chains\/([^/]+)\/metrics\/([^/]+)$/, chainMetric],
  ['GET', /^\/v1\/avg_tps\/([^/]+)$/, legacyAvgTps],
] };
