import { clockAt } from '../../src/base/clock.js';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { composeApp } from '../../src/app/compose.js';
import { loadConfig } from '../../src/config/load.js';
import { activeValidator } from '../../src/sim/samples.js';
import { startSim } from '../../src/sim/server.js';
import { startSlackReceiver } from '../helpers/slack-receiver.js';
import { testNodeId } from '../helpers/node-ids.js';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '../../dist/cli.js');
const ENDING = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const nodes = Array.from({ length: 30 }, (_, i) => testNodeId(`digest-${i}`));

// A day of simulated time through the daemon: 30 info events wait for the 09:00 (Paris)
// digest and arrive as one message; a critical alert of the same day goes out at once; a
// restart in between loses nothing.
describe('a receiver with a daily digest', () => {
  it('gathers 30 info events into one message at the set hour and sends a critical one at once', async () => {
    const clock = { now: Date.parse('2026-01-05T09:30:00Z') }; // 10:30 in Paris
    const sim = await startSim();
    const slack = await startSlackReceiver();
    const dir = mkdtempSync(join(tmpdir(), 'avawatch-digest-'));
    const t = Math.floor(clock.now / 1000);
    for (const [i, n] of nodes.entries()) sim.world.setValidators('mainnet', n, [activeValidator({ nodeId: n, txHash: `p-${i}`, startTimestamp: t - 86_400, endTimestamp: t + 60 * 86_400 })]);
    sim.world.setValidators('mainnet', ENDING, [activeValidator({ nodeId: ENDING, txHash: 'ending', startTimestamp: t - 86_400, endTimestamp: t + 2 * 86_400 })]);
    const config = join(dir, 'avawatch.yaml');
    writeFileSync(
      config,
      `api: {dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0}
state: {path: "${join(dir, 'state.db')}"}
route: {receivers: [ops], repeatInterval: 0s}
receivers:
  - name: ops
    type: slack
    webhookUrl: "${slack.webhookUrl}"
    minInterval: 0s
    digest: {severities: [info], every: 24h, at: "09:00", location: Europe/Paris}
ruleFiles: [rules.yaml]
`,
    );
    writeFileSync(
      join(dir, 'rules.yaml'),
      `rules:
  - {name: status, kind: validator-status, every: 1m, severity: info, network: mainnet, nodeIds: [${nodes.join(', ')}]}
  - {name: ending, kind: validation-end, every: 1m, severity: critical, network: mainnet, nodeIds: [${ENDING}]}
`,
    );
    const start = () => composeApp(loadConfig(config, {}), { logLevel: 'error', readable: false, clock: clockAt(() => clock.now) }).app;
    let app = start();
    const digests = () => slack.posts.map((p) => JSON.stringify(p.body)).filter((text) => text.includes('Digest for'));
    const tick = async () => {
      const result = await app.once();
      expect(result.failures.map((f) => String(f.error))).toEqual([]);
      await app.delivery.drain(5_000);
      return result.alerts;
    };
    try {
      // The baseline, and the critical alert: sent at once, not held for the digest.
      expect((await tick()).map((a) => `${a.rule} ${a.status}`)).toEqual(['ending firing']);
      expect(slack.posts).toHaveLength(1);
      expect(slack.posts[0]!.body.text).toContain('[FIRING CRITICAL] ending');

      // 30 validations end through the day, one every 20 minutes: 30 info events, none sent yet.
      let events = 0;
      for (const [i, n] of nodes.entries()) {
        clock.now += 20 * 60_000;
        sim.world.setValidationStatus(n, 'completed');
        events += (await tick()).filter((a) => a.rule === 'status' && a.status === 'event').length;
        if (i === 14) {
          // A restart half-way: what waits for the digest is in the outbox, not in memory.
          await app.stop();
          app = start();
        }
      }
      expect(events).toBe(30);
      expect(slack.posts).toHaveLength(1);
      const waiting = await app.store.outbox('pending');
      expect(waiting).toHaveLength(30);
      expect(new Set(waiting.map((r) => r.digestAt))).toEqual(new Set([Date.parse('2026-01-06T08:00:00Z')]));
      const listed = await run(process.execPath, [CLI, 'outbox', '--config', config, '--state', 'pending']);
      expect(listed.stdout).toContain('(waits for the digest at 2026-01-06T08:00:00.000Z)');

      // 08:59 in Paris: still nothing; 09:00: one message with all 30, grouped by rule.
      clock.now = Date.parse('2026-01-06T07:59:00Z');
      await tick();
      expect(digests()).toHaveLength(0);
      clock.now = Date.parse('2026-01-06T08:00:00Z');
      await tick();
      expect(digests()).toHaveLength(1);
      expect(digests()[0]).toContain('Digest for ops: 30 notification(s)');
      expect(digests()[0]).toContain('status: 30');
      expect(await app.store.outbox('pending')).toHaveLength(0);

      // Two more the next day; a silence made while they wait mutes the one it matches.
      for (const n of nodes.slice(0, 2)) {
        clock.now += 60 * 60_000;
        const at = Math.floor(clock.now / 1000);
        sim.world.addValidation('mainnet', { nodeId: n, txHash: `again-${n}`, startTimestamp: at - 60, endTimestamp: at + 30 * 86_400 }, 'active');
        await tick();
      }
      await app.store.addSilence({ matchers: [{ name: 'node', value: nodes[0]!, regex: false }], startsAt: clock.now, endsAt: clock.now + 86_400_000, comment: 'maintenance', createdBy: 'test', createdAt: clock.now });
      clock.now = Date.parse('2026-01-07T08:00:00Z');
      await tick();
      expect(digests()).toHaveLength(2);
      expect(digests()[1]).toContain('Digest for ops: 1 notification(s)');
      expect((await app.store.outbox('muted')).map((r) => r.lastError)).toEqual([expect.stringMatching(/^silenced by #1 until .*: maintenance$/)]);

      // The next slot has nothing in it: nothing is sent.
      clock.now = Date.parse('2026-01-08T08:00:00Z');
      await tick();
      expect(digests()).toHaveLength(2);
    } finally {
      await app.stop();
      await sim.close();
      await slack.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
