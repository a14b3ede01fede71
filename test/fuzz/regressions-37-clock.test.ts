import { afterEach, describe, expect, it } from 'vitest';
import { applyChange, worldChange } from '../../src/sim/scenario.js';
import { ALPHA, startShipped, type Shipped } from './clock-step-service.js';
import { REGRESSIONS_37_CLOCK } from './regressions-37-clock.js';
import { captureLogs, replay } from './replay.js';

// What the fuzzer's clock steps (steps-clock.ts) found (issue 37), replayed on every run.

describe('the daemon when the host clock steps (invariant fuzzer)', () => {
  const logs = captureLogs();
  it.each(REGRESSIONS_37_CLOCK)('stays fixed: %s', async (_name, steps) => {
    await replay(logs, steps);
  }, 60_000);
});

describe('the shipped validator-status rule when the host clock steps back an hour (issue 37)', () => {
  let run: Shipped | undefined;
  afterEach(async () => {
    await run?.close();
    run = undefined;
  });

  it('asks the service at every evaluation, so a validation that completes meanwhile alerts; the step is logged once', async () => {
    run = await startShipped();
    const { app, world, sim } = run;
    expect((await app.once()).failures).toEqual([]);
    world.clock.stepWall(-3600_000);
    const calls: number[] = [];
    const alerts: string[] = [];
    for (let i = 0; i < 4; i++) {
      world.clock.advance(10_000);
      if (i === 2) applyChange(world, worldChange.parse({ validator: { nodeId: ALPHA, status: 'completed' } }), world.clock.nowMs());
      const before = sim.requests.length;
      const { alerts: sent, failures } = await app.once();
      expect(failures).toEqual([]);
      calls.push(sim.requests.length - before);
      alerts.push(...sent.map((a) => `${a.status} ${a.summary}`));
    }
    // Four evaluations 10 s apart, past the 5 s dedupe window: four reads, none an old answer.
    expect(calls, 'reads per evaluation').not.toContain(0);
    expect(alerts).toEqual([expect.stringMatching(/alpha.*completed/i)]);
    const stepped = run.logs.filter((l) => l.includes("the host's wall clock stepped back by 1h"));
    expect(stepped).toHaveLength(1);
  }, 30_000);

  it('is not green on an old answer: the service failing after the step fails the rule, and the heartbeat (its blindness check) names it', async () => {
    run = await startShipped();
    const { app, world } = run;
    expect((await app.once()).failures).toEqual([]);
    expect(app.blindness()).toEqual([]);
    world.clock.stepWall(-3600_000);
    world.clock.advance(10_000);
    world.faults.push(...Array.from({ length: 10 }, () => ({ status: 503, pathIncludes: '/validators' })));
    const { failures } = await app.once();
    expect(failures.map((f) => f.rule)).toEqual(['my-validators']);
    expect(app.blindness()).toEqual([expect.stringMatching(/^the data service answers 503 since \d\d:\d\d UTC: 1 rule failing \(my-validators\): .*HTTP 503/)]);
  }, 30_000);
});
