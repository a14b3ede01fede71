import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { alertsCommand, outboxCommand } from '../../src/commands/inspect.js';
import { onceCommand } from '../../src/commands/once.js';
import { loadConfig } from '../../src/config/load.js';
import { applyChange, worldChange } from '../../src/sim/scenario.js';
import { startSim, type SimServer } from '../../src/sim/server.js';

// A node's health check names and errors are its own text: printed raw, an ESC sequence in
// one could retitle or clear the operator's terminal, a BEL ring it, a bidi override reorder
// the line. `once`, `alerts` and `outbox` print them inert, in text and in JSON.

const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const HOSTILE_CHECK = '\u001b]0;pwned\u0007evil\u202e';
const HOSTILE_ERROR = 'boom\u001b[2J\u009b31m\nforged line';
// ESC, BEL, C1 CSI, a bidi override: none may reach the terminal.
// eslint-disable-next-line no-control-regex -- control characters are what is looked for
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('hostile node text reaches the terminal inert', () => {
  let sim: SimServer;
  let dir: string;
  let config: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'avawatch-term-'));
    sim = await startSim();
    change({ validations: [{ nodeId: A, txHash: 'tx-a', start: '-30d', end: '+200d', uptimePerformance: 99.5 }], nodes: [{ nodeId: A }] });
    const shipped = readFileSync('rules/node-health.yaml', 'utf8');
    writeFileSync(join(dir, 'node-health.yaml'), shipped.replace(/^(\s*for:\s*)\S+/m, '$10s'));
    config = join(dir, 'avawatch.yaml');
    // A receiver nobody listens on: `once` without --send leaves the rows in the outbox.
    writeFileSync(
      config,
      `api: {dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0}\nstate: {path: "${join(dir, 'state.db')}"}\nruleFiles: [node-health.yaml]\n` +
        `route: {receivers: [ops]}\nreceivers:\n  - {name: ops, type: slack, webhookUrl: "http://127.0.0.1:9/services/x"}\n` +
        `validators:\n  - { name: alpha, nodeId: ${A}, api: "${sim.url}/node/${A}" }\n`,
    );
  });
  afterEach(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function change(c: Record<string, unknown>): void {
    applyChange(sim.world, worldChange.parse(c), sim.world.clock.nowMs());
  }
  /** What a command printed on stdout and stderr. */
  async function printed(run: () => unknown): Promise<string> {
    const out: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(`${a.join(' ')}\n`));
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void out.push(`${a.join(' ')}\n`));
    try {
      await run();
      return out.join('');
    } finally {
      vi.restoreAllMocks();
    }
  }
  const once = (json: boolean) => printed(() => onceCommand(loadConfig(config, {}), { json, sendTimeoutMs: 0, logLevel: 'silent', clock: sim.world.clock.asClock() }));

  it('once, alerts and outbox print a failing check named with ESC, BEL and a bidi override as inert text on one line', async () => {
    expect(await once(false)).not.toContain('FIRING');
    change({ node: { nodeId: A, failing: { [HOSTILE_CHECK]: HOSTILE_ERROR } } });
    const text = await once(false);
    expect(text).toContain("alpha (NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg)'s health check ?]0;pwned?evil? fails: boom?[2J?31m forged line");
    expect(text).not.toMatch(RAW);
    expect(text.split('\n').filter((l) => l.startsWith('forged'))).toEqual([]);

    const alerts = await printed(() => alertsCommand(loadConfig(config, {}), false));
    expect(alerts).toContain("health check ?]0;pwned?evil? fails: boom?[2J?31m forged line");
    expect(alerts).not.toMatch(RAW);
    const outbox = await printed(() => outboxCommand(loadConfig(config, {}), 'pending', false));
    expect(outbox).toMatch(/^#\d+ pending ops attempts=0 .*health check \?\]0;pwned\?evil\? fails/);
    expect(outbox).not.toMatch(RAW);

    // JSON keeps the text whole (escaped), and prints no control either.
    for (const json of [await printed(() => alertsCommand(loadConfig(config, {}), true)), await printed(() => outboxCommand(loadConfig(config, {}), 'pending', true))]) {
      expect(json).not.toMatch(RAW);
      const lines = json.trim().split('\n').map((l) => JSON.parse(l) as { summary: string });
      expect(lines.some((l) => l.summary.includes(`health check ${HOSTILE_CHECK} fails`))).toBe(true);
    }
  });
});
