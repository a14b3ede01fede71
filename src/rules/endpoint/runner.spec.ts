import { afterEach, describe, expect, it } from 'vitest';
import type { ListRequest } from './read.js';
import { budget, ExpressionRunner } from './runner.js';

const list = (condition: string): ListRequest => ({
  op: 'list',
  rule: { path: '/v1/x', items: 'items', key: 'id', mode: 'condition', condition },
  body: { items: [{ id: 'a', n: 1 }, { id: 'b', n: 5 }] },
  bindings: { path: '/v1/x' },
});
const RUNAWAY = '$count($spread([1..99999])) > 0';

describe('the expression process', () => {
  const runners: ExpressionRunner[] = [];
  const runner = (o?: ConstructorParameters<typeof ExpressionRunner>[0]) => {
    const r = new ExpressionRunner(o);
    runners.push(r);
    return r;
  };
  afterEach(() => {
    for (const r of runners.splice(0)) r.stop();
  });
  const open = () => new AbortController().signal;

  it("answers one request at a time: one queued behind a runaway is answered once that is stopped, on its own full time", async () => {
    const r = runner();
    const runaway = r.run(list(RUNAWAY), budget(500), open());
    const next = r.run(list('n > 2'), budget(5_000), open());
    await expect(runaway).rejects.toThrow('expressions ran past 500ms (expressionTimeout) and were stopped');
    expect(await next).toEqual({ entries: [{ key: 'a', holds: false }, expect.objectContaining({ key: 'b', holds: true })] });
  }, 30_000);

  it('one budget spans the requests of an evaluation', async () => {
    const r = runner();
    const b = budget(5_000);
    await r.run(list('n > 2'), b, open());
    expect(b.leftMs).toBeLessThan(5_000);
    b.leftMs = 0;
    await expect(r.run(list('n > 2'), b, open())).rejects.toThrow('expressions ran past 5s (expressionTimeout) and were stopped');
  }, 30_000);

  it('a request aborted while queued leaves the queue; the one running goes on', async () => {
    const r = runner();
    const first = r.run(list('n > 2'), budget(5_000), open());
    const cancel = new AbortController();
    const queued = r.run(list('n > 2'), budget(5_000), cancel.signal);
    cancel.abort(new Error('reloaded'));
    await expect(queued).rejects.toThrow('reloaded');
    expect(await first).toEqual({ entries: [{ key: 'a', holds: false }, expect.objectContaining({ key: 'b', holds: true })] });
  }, 30_000);

  it('a process that cannot start fails the request and says why', async () => {
    const r = runner({ entry: new URL('./no-such-sandbox.js', import.meta.url) });
    await expect(r.run(list('true'), budget(5_000), open())).rejects.toThrow(/^the expression process could not start: exit code 1$/);
  }, 30_000);
});
