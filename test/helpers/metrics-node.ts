import { NodeApiError, type NodeApi } from '../../src/api/node-api.js';
import type { ObserveContext } from '../../src/rules/types.js';
import { nodeMetrics } from '../../src/rules/node-metrics/index.js';
import { spec as specSchema, type State } from '../../src/rules/node-metrics/schema.js';

// node-metrics's specs' node (src/rules/node-metrics/index.spec.ts, forms.spec.ts): a NodeApi that
// answers only with each URL's exposition, and one observe-and-evaluate step from the last states.

export const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
export const B = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
export const T0 = 1_800_000_000;
export const at = (s: number) => new Date((T0 + s) * 1000);

/** A NodeApi whose only answer is each URL's exposition (a function: its text now, or it throws). */
export function fakeNode(expositions: Record<string, string | (() => string)>): NodeApi & { read: string[] } {
  const read: string[] = [];
  const refuse = () => Promise.reject(new Error('not used by node-metrics'));
  return {
    read,
    health: refuse,
    rpc: refuse,
    metricsText(url) {
      read.push(url);
      const e = expositions[url];
      if (e === undefined) return Promise.reject(new NodeApiError(`${url}: connection refused`, 'unreachable'));
      try {
        return Promise.resolve(typeof e === 'function' ? e() : e);
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
}

export function ctx(node: NodeApi, now = at(0)): ObserveContext {
  return { node, signal: new AbortController().signal, now, previous: new Map() } as unknown as ObserveContext;
}

export const parse = (raw: Record<string, unknown>) => specSchema.parse({ urls: { [A]: 'http://a:9650' }, metric: 'avalanche_snowman_blks_processing', ...raw });

/** Observe and evaluate one step, from the states of the last. */
export async function step(s: ReturnType<typeof parse>, node: NodeApi, previous: ReadonlyMap<string, State>, t: number) {
  const observation = await nodeMetrics.observe(s, ctx(node, at(t)));
  return nodeMetrics.evaluate(previous, observation, at(t), s);
}

/** The keys of the series' states (not the targets' own count entries). */
export const seriesKeys = (states: ReadonlyMap<string, State>) => [...states.keys()].filter((k) => !states.get(k)?.count);

export const exposition = (lines: string[]) => `# HELP x y\n# TYPE x gauge\n${lines.join('\n')}\n`;
