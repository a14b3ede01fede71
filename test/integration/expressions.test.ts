import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { onProcess, startDaemon, type Daemon } from '../helpers/cli.js';
import { writeProject, type TempProject } from '../helpers/harness.js';

// The built daemon with endpoint rules whose JSONata runs away (a built-in no timeout stops)
// or pads 300 MB per item: it keeps serving, fails those rules, and leaves no process behind.

const rules = `rules:
  - name: runaway
    kind: endpoint
    every: 1s
    severity: warning
    path: /v1/networks/mainnet/validators
    items: validators
    key: nodeId
    mode: condition
    condition: $count($spread([1..99999])) > 0
    expressionTimeout: 2s
  - name: padded
    kind: endpoint
    every: 1s
    severity: warning
    path: /v1/networks/mainnet/validators
    items: validators
    key: nodeId
    mode: condition
    condition: delegatorCount > 10
    summary: "Delegators: {$pad('', delegatorCount, '#')}"
    expressionTimeout: 2s
`;

/** The processes whose parent is `pid` (Linux `ps`). */
function children(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // ps exits 1 when there is none
  }
}

/** CPU seconds a process has used (Linux /proc: utime + stime, in ticks of 1/100 s); 0 once it is gone. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('endpoint expressions beside a running daemon', () => {
  let sim: SimServer;
  let project: TempProject;
  let daemon: Daemon | undefined;
  beforeEach(async () => {
    sim = await startSim();
    // 100 validators with 300,000,000 delegators each (a valid count), at every read.
    const body = JSON.stringify({ validators: Array.from({ length: 100 }, (_, i) => ({ nodeId: `NodeID-${i}`, delegatorCount: 300_000_000 })) });
    for (let i = 0; i < 50; i++) sim.world.faults.push({ status: 200, pathMatches: '/validators$', body });
    project = writeProject({ dataUrl: sim.url, nodeIds: [], rules: { 'endpoint.yaml': rules } });
  });
  afterEach(async () => {
    await daemon?.kill();
    daemon = undefined;
    await sim.close();
    project.cleanup();
  });

  it('answers /healthz within a second while the rules run away, and fails those rules', async () => {
    daemon = startDaemon(project.configFile);
    const url = await daemon.started();
    const slowest = { ms: 0 };
    const stopped = (rule: string) => new RegExp(`"rule":"${rule}","error":"expressions ran past 2s \\(expressionTimeout\\) and were stopped","msg":"rule evaluation failed; state unchanged"`).test(daemon?.log() ?? '');
    // Probed all the while both rules run away, until each has been stopped at its 2 s budget on
    // the host's clock (a runaway burns a core: no longer than it takes to show both).
    const bothStopped = onProcess(
      async () => {
        const t = performance.now();
        expect((await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(30_000) })).status).toBe(200);
        slowest.ms = Math.max(slowest.ms, performance.now() - t);
        return stopped('padded') && stopped('runaway');
      },
      'both rules stopped',
      30_000,
    );
    await bothStopped.catch((err: Error) => {
      throw new Error(`${err.message}:\n${daemon?.log() ?? ''}`);
    });
    expect(slowest.ms).toBeLessThan(1_000);
    expect(daemon.child.exitCode).toBe(null);
  }, 60_000);

  it('a daemon killed (kill -9) mid-runaway leaves no expression process running', async () => {
    // The runaway alone, with time enough to be caught at it.
    writeFileSync(join(project.dir, 'rules', 'endpoint.yaml'), rules.split('  - name: padded')[0]?.replace('expressionTimeout: 2s', 'expressionTimeout: 5m') ?? '');
    daemon = startDaemon(project.configFile);
    await daemon.started();
    const pid = daemon.child.pid as number;
    // Busy with the runaway (starting takes a fraction of this), so deaf to its channel closing.
    // The expression process's CPU seconds: real computing in a process of its own.
    const sandbox = await onProcess(() => children(pid).find((child) => cpuSeconds(child) > 1.5), 'the expression process to be busy', 30_000);
    await daemon.kill();
    // The orphaned expression process ends itself, its watchdog thread checking its parent every
    // second of its own wall clock.
    await onProcess(() => !alive(sandbox), 'the expression process to end', 10_000);
  }, 60_000);

  it("one rule's runaway holds no other rule: each has its own expression process", async () => {
    // The runaway with five minutes to run, beside a rule that reads the same list every second.
    const runaway = rules.split('  - name: padded')[0]?.replace('expressionTimeout: 2s', 'expressionTimeout: 5m') ?? '';
    const calm = `  - name: calm
    kind: endpoint
    every: 1s
    severity: warning
    path: /v1/networks/mainnet/validators
    items: validators
    key: nodeId
    mode: condition
    condition: delegatorCount < 0
`;
    writeFileSync(join(project.dir, 'rules', 'endpoint.yaml'), `${runaway}${calm}`);
    daemon = startDaemon(project.configFile);
    const url = await daemon.started();
    const count = async (metric: string) => Number(new RegExp(`^${metric}\\{rule="calm"\\} (\\d+)`, 'm').exec(await (await fetch(`${url}/metrics`)).text())?.[1] ?? 0);
    // Four that succeeded (a skip counts as started and failed): held by the runaway, it would have none.
    // Its own first run may be skipped once on a busy machine, while its expression process starts.
    const succeeded = async () => (await count('avawatch_rule_evaluations_total')) - (await count('avawatch_rule_evaluation_failures_total'));
    // Each evaluation is real work (the calm rule's expression process computing, beside a runaway
    // burning a core): on the fixture's fake time its 1 s ticks outrun that work and are skipped (a
    // skip counts as failed); the built daemon's ticks are on its own wall clock.
    await onProcess(async () => (await succeeded()) >= 4, 'the calm rule to be evaluated four times, without failing', 30_000);
    expect(await count('avawatch_rule_evaluation_failures_total'), daemon.log()).toBeLessThanOrEqual(1);
    expect(daemon.log()).not.toMatch(/"rule":"runaway".*rule evaluation failed/);
  }, 60_000);
});
