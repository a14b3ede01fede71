import { describe, expect, it } from 'vitest';
import { withEndpointRule } from '../../../test/helpers/endpoint-rule.js';
import { spec as specSchema, type Spec } from './schema.js';

// One page of 90,000 items, read whole in each mode: linear work, the right alerts.

const PATH = '/v1/networks/mainnet/validators';
const N = 90_000;

// expressionTimeout: generous, this checks the result, not the speed (a few seconds, measured apart).
const rule = (extra: Record<string, unknown>) => specSchema.parse({ path: PATH, items: 'validators', key: 'nodeId', maxItems: 100_000, expressionTimeout: '2m', ...extra });
const validators = (n: number, item: (i: number) => Record<string, unknown> = () => ({})) =>
  Array.from({ length: n }, (_, i) => ({ nodeId: `NodeID-${i}`, delegatorCount: i, ...item(i) }));

describe('an endpoint rule over a 90,000-item page', () => {
  const f = withEndpointRule({ timeoutMs: 10_000 });
  const run = (s: Spec) => f.run(s);

  /** The next read of the list answers these items. */
  const serve = (items: unknown[]) => f.sim.world.faults.push({ status: 200, pathMatches: '/validators$', body: JSON.stringify({ validators: items }) });

  it('mode new: one event for the one new item', async () => {
    serve(validators(N));
    expect((await run(rule({ mode: 'new' }))).alerts).toEqual([]);
    expect(f.previous.size).toBe(N + 1);
    serve([{ nodeId: 'NodeID-new', delegatorCount: 1 }, ...validators(N)]);
    expect((await run(rule({ mode: 'new' }))).alerts.map((a) => a.summary)).toEqual([`New item NodeID-new in GET ${PATH}`]);
  }, 120_000);

  it('mode condition: the items that hold, each once', async () => {
    serve(validators(N));
    const { conditions } = await run(rule({ mode: 'condition', condition: 'delegatorCount % 1000 = 999' }));
    expect(conditions).toHaveLength(90);
    expect(conditions?.[89]?.summary).toBe(`NodeID-89999 in GET ${PATH}: delegatorCount % 1000 = 999`);
  }, 120_000);

  it('mode change: one event for the one item changed', async () => {
    serve(validators(N));
    expect((await run(rule({ mode: 'change', field: 'delegatorCount' }))).alerts).toEqual([]);
    serve(validators(N, (i) => (i === 45_000 ? { delegatorCount: 7 } : {})));
    expect((await run(rule({ mode: 'change', field: 'delegatorCount' }))).alerts.map((a) => a.summary)).toEqual([`NodeID-45000 in GET ${PATH}: delegatorCount changed 45000 → 7`]);
  }, 120_000);
});
