import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { withEndpointRule } from '../../../test/helpers/endpoint-rule.js';
import { spec as specSchema, type Spec } from './schema.js';

// An endpoint rule's JSONata runs in the expression process: a runaway or a memory blowup
// there fails the rule's evaluation; the daemon's thread keeps serving.

const PATH = '/v1/networks/mainnet/validators';

const rule = (extra: Record<string, unknown>) => specSchema.parse({ path: PATH, items: 'validators', key: 'nodeId', mode: 'condition', condition: 'delegatorCount > 10', ...extra });
const validators = (n: number, item: (i: number) => Record<string, unknown> = () => ({})) => ({
  validators: Array.from({ length: n }, (_, i) => ({ nodeId: `NodeID-${i}`, delegatorCount: i, ...item(i) })),
});

describe('endpoint expressions run apart from the daemon', () => {
  const f = withEndpointRule();
  const run = (s: Spec, signal?: AbortSignal) => f.run(s, signal ? { signal } : {});

  /** The next read of the list answers this body. */
  const serve = (body: unknown) => f.sim.world.faults.push({ status: 200, pathMatches: '/validators$', body: JSON.stringify(body) });

  /** The expression process started and idle (a first evaluation waits for it to load, not on the expressions). */
  async function warm(): Promise<void> {
    serve(validators(1));
    await run(rule({}));
    f.previous = new Map();
  }

  /**
   * While `running` (an evaluation) has not settled and its list was read, asks the simulator
   * (served by this thread, the daemon's) one request after another, up to `ask`: how many it
   * answered before the evaluation ended. A thread that waited on the expressions answers none
   * of them until they ended (no wall-clock threshold: a slow machine answers them all the same).
   */
  async function answeredWhile(running: Promise<unknown>, ask = 10): Promise<number> {
    let settled = false;
    void running.then(
      () => (settled = true),
      () => (settled = true),
    );
    while (!settled && !f.sim.requests.some((r) => r.includes('/validators'))) await new Promise((r) => setImmediate(r));
    let answered = 0;
    while (!settled && answered < ask) {
      const res = await fetch(`${f.sim.url}/_sim/requests`);
      await res.arrayBuffer();
      if (!settled) answered++;
    }
    return answered;
  }

  it('a condition no timeout stops, over 100 items, is stopped at expressionTimeout; the daemon thread never waits on it', async () => {
    // $spread of a long list runs inside one built-in call, which JSONata's own 500 ms cap cannot interrupt.
    const runaway = rule({ condition: '$count($spread([1..99999])) > 0', expressionTimeout: '1s' });
    await warm();
    serve(validators(100));
    const running = run(runaway);
    expect(await answeredWhile(running)).toBe(10);
    await expect(running).rejects.toThrow('expressions ran past 1s (expressionTimeout) and were stopped');
    expect(f.previous).toEqual(new Map());
    // A fresh process serves the next evaluation.
    serve(validators(20));
    expect((await run(rule({}))).conditions?.map((c) => c.key)).toEqual(Array.from({ length: 9 }, (_, i) => `NodeID-${i + 11}`));
  }, 30_000);

  it('a summary that pads by a chain number over 50 items is stopped at expressionTimeout; the daemon thread never waits on it', async () => {
    // delegatorCount 300,000,000 is a valid count: each summary pads 300 MB of text.
    const s = rule({ summary: 'Delegators: {$pad("", delegatorCount, "#")}', expressionTimeout: '2s' });
    await warm();
    serve(validators(50, () => ({ delegatorCount: 300_000_000 })));
    const running = run(s);
    expect(await answeredWhile(running)).toBe(10);
    await expect(running).rejects.toThrow('expressions ran past 2s (expressionTimeout) and were stopped');
    serve(validators(12));
    expect((await run(s)).conditions?.map((c) => c.summary)).toEqual(['Delegators: ###########']);
  }, 30_000);

  it("an expression past the expression process's memory (or past V8's largest array: a fatal error) ends that process, not the daemon", async () => {
    // $length reads the padded text as an array of 300,000,000 characters.
    const s = rule({ summary: 'Delegators: {$length($pad("", delegatorCount, "#"))}' });
    serve(validators(50, () => ({ delegatorCount: 300_000_000 })));
    await expect(run(s)).rejects.toThrow('the expression process ended: out of memory: its expressions needed more than 256 MB');
    serve(validators(12));
    expect((await run(s)).conditions?.map((c) => c.summary)).toEqual(['Delegators: 11']);
  }, 30_000);

  it('the evaluation ending (shutdown, reload) stops the expressions it started', async () => {
    serve(validators(100));
    const stop = new AbortController();
    const running = run(rule({ condition: '$count($spread([1..99999])) > 0', expressionTimeout: '5m' }), stop.signal);
    setTimeout(() => stop.abort(new Error('shutting down')), 300);
    await expect(running).rejects.toThrow('shutting down');
    // Stopped, not left running: the next request is answered at once, not after the runaway.
    serve(validators(12));
    expect((await run(rule({ expressionTimeout: '5s' }))).conditions?.map((c) => c.key)).toEqual(['NodeID-11']);
  }, 30_000);

  it('keys and watched values are bounded before they reach the state', async () => {
    const s = rule({ mode: 'change', condition: undefined, key: 'nodeId = "NodeID-1" ? $pad("", 2000, "k") : nodeId', field: '$pad("", 20000, $string(delegatorCount))' });
    serve(validators(3));
    const { failed } = await run(s);
    // A long key still identifies its item (every text the contract allows does): by its start and digest.
    expect(failed).toEqual({});
    expect([...f.previous.keys()].filter((k) => k.startsWith('item:k'))).toEqual([`item:${'k'.repeat(100)}… sha256:${createHash('sha256').update('k'.repeat(2000)).digest('hex')}`]);
    expect((f.previous.get('item:NodeID-2') as { value?: string } | undefined)?.value).toMatch(/^sha256:[0-9a-f]{64} \(20002 characters\)$/);
  });
});
