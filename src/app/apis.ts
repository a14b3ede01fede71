import type { Agent } from 'undici';
import { DataApi } from '../api/data/index.js';
import { budgetLimits, Limiter, type BudgetLimits } from '../api/limiter.js';
import { HttpClient } from '../api/http.js';
import { undici } from '../api/undici.js';
import { MetricsApi } from '../api/metrics-api.js';
import { HttpNodeApi } from '../api/node-api.js';
import { budgetName, SharedAllowance } from '../api/shared-budget.js';
import { systemClock, type Clock } from '../base/clock.js';
import type { Logger } from '../base/log.js';
import type { Config } from '../config/schema.js';
import type { Metrics } from '../metrics/registry.js';
import type { StateStore } from '../store/index.js';
import { stableJson } from './reload.js';

// The service's, the Metrics API's and the operator's nodes' clients, with their budgets.

const AGENT_CLOSE_MS = 1_000;

/** The shared budget each limiter spends (none on one machine): a reload that changes the key changes it. */
const sharedNames = new WeakMap<Limiter, string | undefined>();

export interface Apis {
  /** Made once undici has loaded (api/undici.ts): a command that builds no App never loads it. */
  agent: Promise<Agent>;
  data: DataApi;
  metricsApi: MetricsApi;
  /** The operator's own nodes: their own agent, so a node that hangs holds no connection the service needs. */
  nodeAgent: Promise<Agent>;
  node: HttpNodeApi;
  limiters: { data: Limiter; metrics: Limiter };
}

/**
 * The clients of this config; a reload keeps what its budgets spent unless a budget (or the
 * key it is shared by) changed. With shared state (the store's `budget`: PostgreSQL), each
 * API's limiter also takes its units from the budget the instances on its key share
 * (api/shared-budget.ts); on one machine it counts alone.
 */
export function buildApis(config: Config, o: { metrics: Metrics; clock: Clock; log: Logger; store?: Pick<StateStore, 'budget'>; previous?: Apis | undefined }): Apis {
  const agent = agentOf(config.api, 16);
  const httpOptions = {
    dispatcher: agent,
    timeoutMs: config.api.timeout,
    maxResponseBytes: config.api.maxResponseBytes,
    retries: config.api.retries,
    backoffInitialMs: config.api.retryBackoff,
    backoffMaxMs: config.api.retryBackoffMax,
    maxRetryAfterMs: config.api.maxRetryAfter,
  };
  const ledger = o.store?.budget;
  // The Metrics API takes no key: its budget is shared by name alone.
  const names = { data: ledger && budgetName('data', config.api.apiKey), metrics: ledger && budgetName('metrics', undefined) };
  // On the App's clock: a 429's pause ends when that clock says so.
  const newLimiter = (api: 'data' | 'metrics', limits: BudgetLimits) => {
    const name = names[api];
    const shared = ledger && name ? new SharedAllowance({ ledger, budget: name, limits, api, log: o.log }) : undefined;
    const limiter = new Limiter({ limits, maxWaitMs: config.api.maxRetryAfter, clock: o.clock, shared });
    sharedNames.set(limiter, name);
    return limiter;
  };
  const wanted = { data: budgetLimits(config.api.budget), metrics: config.api.metricsBudget };
  const limiters = {
    data: o.previous?.limiters.data ?? newLimiter('data', wanted.data),
    metrics: o.previous?.limiters.metrics ?? newLimiter('metrics', wanted.metrics),
  };
  // A reload keeps what was spent unless the budget itself (or the key sharing it) changed.
  for (const api of ['data', 'metrics'] as const) {
    if (stableJson(limiters[api].limits) !== stableJson(wanted[api]) || sharedNames.get(limiters[api]) !== names[api]) limiters[api] = newLimiter(api, wanted[api]);
  }
  for (const [api, limiter] of Object.entries(limiters)) limiter.onSpend = (cu) => o.metrics.computeUnits.inc({ api }, cu);
  const observe = (api: 'data' | 'metrics') => ({
    onResponse: (endpoint: string, code: string) => {
      o.metrics.apiRequests.inc({ api, endpoint, code });
      o.metrics.apiUp.set({ api }, apiAnswered(code) ? 1 : 0);
    },
    onDedupe: () => o.metrics.apiDeduplicated.inc({ api }),
    limiter: limiters[api],
    dedupeWindowMs: config.api.dedupeWindow,
    clock: o.clock,
  });
  const http = new HttpClient({
    ...httpOptions,
    api: 'data',
    baseUrl: config.api.dataUrl,
    headers: config.api.apiKey ? { [config.api.apiKeyHeader]: config.api.apiKey.reveal() } : {},
    ...observe('data'),
  });
  const data = new DataApi(http, {
    pageSize: config.api.pageSize,
    maxPages: config.api.maxPages,
    onBrokenItem: (endpoint, nodeId, reason) => {
      o.metrics.apiInvalidItems.inc({ api: 'data', endpoint });
      // An item that names its node fails that node, and the rule's warning names it.
      if (nodeId === undefined) o.log.warn({ endpoint, reason }, 'a list item that names no node breaks the contract: left out; nodes not listed are confirmed as absent ones are');
    },
  });
  // The Metrics API takes no key and has its own budget.
  const metricsApi = new MetricsApi(
    new HttpClient({ ...httpOptions, api: 'metrics', baseUrl: config.api.metricsUrl, headers: {}, ...observe('metrics') }),
  );
  const nodeAgent = agentOf(config.nodeApi, 4);
  const node = new HttpNodeApi({
    dispatcher: nodeAgent,
    timeoutMs: config.nodeApi.timeout,
    clock: o.clock,
    // The node's answers count apart: a node that does not answer is not the service down.
    onResponse: (endpoint, code) => o.metrics.apiRequests.inc({ api: 'node', endpoint, code }),
  });
  return { agent, data, metricsApi, limiters, nodeAgent, node };
}


/** A 2xx or an expected 4xx (an unknown node's 404): the API answered. */
function apiAnswered(code: string): boolean {
  return /^[1-4]\d\d$/.test(code) && code !== '429';
}

/** Connections with the deadlines of one API's config. */
async function agentOf(o: { connectTimeout: number; timeout: number }, connections: number): Promise<Agent> {
  const { Agent } = await undici();
  return new Agent({ connect: { timeout: o.connectTimeout }, headersTimeout: o.timeout, bodyTimeout: o.timeout, keepAliveTimeout: 30_000, connections });
}

async function closeAgent(made: Promise<Agent>, waitMs = AGENT_CLOSE_MS): Promise<void> {
  const agent = await made;
  const closed = agent.close();
  // Sockets close on the host's time, whatever the App's clock runs at.
  const cancel = systemClock.setTimer(() => void agent.destroy(), waitMs);
  await closed.catch(() => undefined);
  cancel();
}

/** Both agents closed (their connections drained, then cut), and the limiters `next` does not keep give their shared units back. */
export async function closeApis(apis: Apis, next?: Apis): Promise<void> {
  const kept = new Set(next ? Object.values(next.limiters) : []);
  const limiters = Object.values(apis.limiters).filter((l) => !kept.has(l));
  await Promise.all([closeAgent(apis.agent), closeAgent(apis.nodeAgent), ...limiters.map((l) => l.close())]);
}
