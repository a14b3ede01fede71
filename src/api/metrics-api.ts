import type { HttpClient } from './http.js';
import type { TimeInterval } from './catalog.js';
import { collectPages } from './paginate.js';
import { parse } from './parse.js';
import { metricsPage, type MetricPoint } from './schemas.js';

/** The Metrics API (no key, its own budget). */
export class MetricsApi {
  constructor(readonly http: HttpClient) {}

  /** Points of one chain metric between two times, newest first. */
  async chainMetric(
    chainId: string,
    metric: string,
    timeInterval: TimeInterval,
    startTimestamp: number,
    endTimestamp: number,
    signal?: AbortSignal,
  ): Promise<MetricPoint[]> {
    const endpoint = '/v2/chains/{chainId}/metrics/{metric}';
    const path = `/v2/chains/${encodeURIComponent(chainId)}/metrics/${encodeURIComponent(metric)}`;
    const query = { timeInterval, startTimestamp, endTimestamp, pageSize: 2160 };
    return collectPages(
      async (pageToken) => {
        const body = await this.http.getJson({ endpoint, path, query: { ...query, pageToken }, ...(signal ? { signal } : {}) });
        const page = parse(metricsPage, body, endpoint, path, 'metrics');
        return { items: page.results, nextPageToken: page.nextPageToken };
      },
      { api: 'metrics', endpoint: `GET ${path}`, maxPages: 10 },
    );
  }
}
