import { describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { firingAlerts } from '../../src/alerts/view.js';
import { activeValidator } from '../../src/sim/samples.js';
import { withDaemon, type Daemon } from '../helpers/daemon.js';
import { storedStates } from '../helpers/stored-states.js';

const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const B = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const RULES = `rules:
  - name: status
    kind: validator-status
    every: 1s
    severity: warning
    network: mainnet
    nodeIds: [${A}]
  - name: ending
    kind: validation-end
    every: 1s
    severity: warning
    network: mainnet
    nodeIds: [${B}]
`;

describe('a 429 never stalls everything silently', () => {
  /** A and B active; the daemon, on a fake clock, watching A's status and B's end every second. */
  const daemon = (body: (d: Daemon) => Promise<void>, o: { timeout?: string } = {}) =>
    withDaemon(
      {
        project: { nodeIds: [], rules: { 'rules.yaml': RULES }, ...o },
        before: ({ sim }) => {
          for (const n of [A, B]) sim.world.setValidators('mainnet', n, [activeValidator({ nodeId: n, txHash: `tx-${n.slice(-4)}`, startTimestamp: 1_716_000_000, endTimestamp: 4_102_444_800 })]);
        },
      },
      body,
    );

  async function failures(a: App, rule: string): Promise<number> {
    return (await a.metrics.ruleFailures.get()).values.find((v) => v.labels.rule === rule)?.value ?? 0;
  }

  it.each([
    ['seconds', () => '600'],
    ['an epoch timestamp', () => String(Math.floor(Date.now() / 1000) + 600)],
  ])('one 429 asking for 600 s (as %s) fails the polls of every Data API rule, counted, rule-failing and /readyz say so', (_what, reset) =>
    daemon(async (d) => {
      const a = d.app;
      await d.until(async () => (await storedStates(a.store, 'status'))[A] && (await storedStates(a.store, 'ending'))[B], 'both baselines');
      // The bulk list that asks for A: only the status rule's call. The ending rule's own
      // calls (for B) are never answered 429; they fail because the wait covers every call.
      d.sim.world.faults.push({ status: 429, retryAfter: Number(reset()), pathMatches: '/validators$', query: A });
      await d.until(async () => (await failures(a, 'status')) >= 3 && (await failures(a, 'ending')) >= 3, 'three failed evaluations of each rule', { within: 8_000 });
      // One cause, one alert: the service's pause blinds both rules, and the alert names them.
      const firing = await firingAlerts(a.store);
      expect(firing.map((f) => `${f.labels['rule']} ${f.labels['alertname']} ${f.labels['source']}`)).toEqual(['avawatch rule-failing data-service']);
      expect(firing[0]?.summary).toMatch(/^avawatch cannot see: the data service asked us to pause \(429\) since \d\d:\d\d UTC, 2 rules$/);
      const ready = await fetch(`${a.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.text()).toMatch(/the data service asked us to pause \(429\) since \d\d:\d\d UTC: 2 rules failing \(ending, status\): data API GET \/v1\/networks\/mainnet\/validators: the service answered 429 and asked to wait until \S+, longer than api.maxRetryAfter: this poll fails/);
      expect(d.logs.join('')).not.toContain('previous evaluation still running');
      expect(d.warnings).not.toContain('TimeoutOverflowWarning');
    }),
  );

  it('an evaluation held past its interval counts as failing instead of being skipped silently', () =>
    // Every bulk call that asks for A hangs 4 s (under the 10 s timeout): each tick meanwhile
    // is skipped. A poll makes one such call (the active list).
    daemon(
      async (d) => {
        const a = d.app;
        await d.until(async () => (await storedStates(a.store, 'status'))[A], 'the baseline');
        // A delayed fault without a body of its own answers what the service would, late.
        // The simulator holds it 4 s of real time; the daemon's ticks and timeout run on fake time.
        d.sim.world.faults.push(
          ...Array.from({ length: 10 }, () => ({ status: 200, delayMs: 4_000, trickle: { chunkBytes: 1 << 20, intervalMs: 1 }, pathMatches: '/validators$', query: A })),
        );
        await d.until(async () => (await firingAlerts(a.store)).some((f) => f.labels['rule'] === 'status'), 'rule-failing for the held rule', { within: 10_000 });
        expect((await firingAlerts(a.store)).find((f) => f.labels['rule'] === 'status')?.summary).toMatch(/rule "status" is blind: its last \d+ evaluations failed \(evaluation skipped: the previous one has been running for \d+s, past the rule's interval\)/);
        expect(await failures(a, 'ending')).toBe(0);
      },
      { timeout: '10s' },
    ));
});
