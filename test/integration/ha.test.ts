import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { composeApp } from '../../src/app/compose.js';
import { firingAlerts } from '../../src/alerts/view.js';
import { loadConfig } from '../../src/config/load.js';
import { SimClock } from '../../src/sim/clock.js';
import { activeValidator } from '../../src/sim/samples.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { World } from '../../src/sim/world.js';
import { startAlertmanager, type RunningAlertmanager } from '../helpers/alertmanager.js';
import { freePort } from '../helpers/ports.js';
import { useFakeTime, type Check, type FakeTime } from '../helpers/fake-time.js';

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';

interface Notification {
  status: string;
  alerts: Array<{ status: string; labels: Record<string, string> }>;
}

/** Where the Alertmanager cluster sends: every webhook notification it makes, in order. */
async function startWebhookSink(): Promise<{ url: string; received: Notification[]; close(): Promise<void> }> {
  const received: Notification[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Notification);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, received, close: () => new Promise((r) => server.close(() => r()))};
}

// The peers' timing, short for a test: the first notification after 1s, then a flush of the
// group every 2s; the second peer waits 1s for the first one's notification log (gossip
// runs every 200ms). A flush must end before the next one starts (peer timeout < group
// interval), or the second peer's flushes drift and see a stale group.
const GROUP_INTERVAL_MS = 2_000;
const AM_CONFIG = (sink: string) => `route:
  receiver: hook
  group_by: [alertname, node]
  group_wait: 1s
  group_interval: ${GROUP_INTERVAL_MS / 1000}s
  repeat_interval: 4h
receivers:
  - name: hook
    webhook_configs:
      - url: ${sink}
`;

/**
 * The instances' clock (the simulator's, on fake time) stands this far behind the peers' wall
 * clocks: Alertmanager keeps a firing alert's later endsAt over a resolution whose endsAt it reads
 * as still to come, and the fake time the test pumps unpaced (while both instances first poll and deliver) may run ahead
 * of the wall. A resolution is then in the peers' past on arrival. A firing alert lives three
 * resend intervals (90 s) of the instances' time, longer than the test runs.
 */
const BEHIND_MS = 20_000;
const RESEND = '30s';

// The two instances (Apps in this process, real SQLite) run on fake time (test/helpers/fake-time.ts),
// on the simulator's clock; the peers, the webhook sink and the simulator are real servers, the
// peers started before the fake time (their readiness is their own).
describe('high availability: two avawatch instances, a two-peer Alertmanager cluster', () => {
  let sim: SimServer;
  let sink: Awaited<ReturnType<typeof startWebhookSink>>;
  let peers: RunningAlertmanager[] = [];
  let apps: App[] = [];
  let dir: string;
  let time: FakeTime | undefined;
  const fake = (): FakeTime => {
    if (!time) throw new Error('no fake time');
    return time;
  };
  // Every wait on the peers (the cluster forming, what each holds and has flushed, what the sink
  // was sent) goes through here: the instances' fake time moves meanwhile, as fast as the wall at most.
  // real wait: the peers gossip, group (group_wait, group_interval) and flush on their own wall clocks.
  const cluster = <T>(check: Check<T>, what: string): Promise<T> => fake().until(check, what, { pace: 10, within: 20_000 });

  beforeEach(async () => {
    sink = await startWebhookSink();
    dir = mkdtempSync(join(tmpdir(), 'avawatch-ha-'));
    const [a, b] = [await freePort(), await freePort()];
    peers = await Promise.all([
      startAlertmanager({ config: AM_CONFIG(sink.url), cluster: { port: a, peers: [b], peerTimeout: '1s' } }),
      startAlertmanager({ config: AM_CONFIG(sink.url), cluster: { port: b, peers: [a], peerTimeout: '1s' } }),
    ]);
    time = useFakeTime();
    sim = await startSim({ world: new World(new SimClock(Date.now() - BEHIND_MS, 1)) });
  });

  afterEach(async () => {
    // Each stop waits on timers (its grace): fake time moves meanwhile.
    for (const app of apps) await time?.settle(app.stop(), 'the instance to stop');
    apps = [];
    time?.restore();
    time = undefined;
    // One after the other: two peers leaving together each wait 10 s for the other's goodbye.
    for (const peer of peers) await peer.stop();
    await sim.close();
    await sink.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** An instance with its own state file; `every` sets when it polls (not a label: the alerts stay one). */
  async function instance(name: string, every: string): Promise<App> {
    const home = join(dir, name);
    mkdirSync(home);
    writeFileSync(
      join(home, 'avawatch.yaml'),
      // dedupeWindow 0: the slow instance's once() reads the service afresh, not its own answer of seconds ago.
      `api: {dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0, dedupeWindow: 0s}
state: {path: "${join(home, 'state.db')}"}
server: {listen: "127.0.0.1:0"}
route: {receivers: [am]}
receivers:
  - name: am
    type: alertmanager
    url: [${peers.map((p) => `"${p.url}"`).join(', ')}]
    resendInterval: ${RESEND}
ruleFiles: [rules.yaml]
`,
    );
    // The same rule on both instances: identical labels, so Alertmanager sees one alert.
    writeFileSync(join(home, 'rules.yaml'), `rules:\n  - {name: ending, kind: validation-end, every: ${every}, severity: critical, network: mainnet, nodeIds: [${NODE}]}\n`);
    const app = composeApp(loadConfig(join(home, 'avawatch.yaml'), {}), { logLevel: 'error', readable: false, clock: sim.world.clock.asClock() }).app;
    apps.push(app);
    await app.start();
    return app;
  }

  const notified = () => sink.received.map((n) => n.alerts.map((a) => `${a.status} ${a.labels['alertname']} ${a.labels['node']}`));
  /** How many alerts each peer's dispatcher has received so far. */
  const received = () => peers.map((p) => p.dispatched().filter((e) => e === 'received').length);
  /**
   * Waits until each peer received more than `before` alerts and flushed its group after the
   * last one: by then it has sent whatever it would of them (a positive signal, not a sleep).
   */
  async function flushedAfter(before: number[], what: string): Promise<void> {
    await cluster(() => received().every((n, i) => n > (before[i] ?? 0)) && peers.every((p) => p.dispatched().at(-1) === 'flushed'), what);
  }

  it('one firing and one resolved notification reach the receiver; the instance that has not polled yet never re-fires it', async () => {
    await cluster(async () => (await Promise.all(peers.map((p) => p.status()))).every((s) => s.cluster.status === 'ready' && s.cluster.peers.length === 2), 'the two peers to form a cluster');
    const now = sim.world.clock.now();
    const period = (txHash: string, days: number) => [activeValidator({ nodeId: NODE, txHash, startTimestamp: now - 86_400, endTimestamp: now + days * 86_400 })];
    sim.world.setValidators('mainnet', NODE, period('ending-soon', 2));

    // Different poll phases: `fast` every second; `slow` once at start, then not for 30 s or more.
    const [fast, slow] = await Promise.all([instance('fast', '1s'), instance('slow', '1m')]);
    // Both instances fire the alert, both peers hold it, and the receiver hears it once.
    await fake().until(async () => (await fast.store.outbox('sent')).length > 0 && (await slow.store.outbox('sent')).length > 0, 'both instances to deliver', { within: 10_000 });
    for (const peer of peers) await cluster(async () => (await peer.alerts()).length === 1, `the alert in ${peer.url}`);
    await cluster(() => sink.received.length > 0, 'the firing notification');

    // A new validation period: the fast instance resolves it at its next poll.
    sim.world.setValidators('mainnet', NODE, period('next-period', 200));
    await cluster(() => sink.received.length > 1, 'the resolved notification');
    // Each peer has flushed its group after the last post it got (the one that did not send
    // found the resolution in the notification log): the slow instance, still firing in its own
    // state, must not have made the alert fire again.
    await flushedAfter([0, 0], 'each peer to flush after its last post');
    expect(await firingAlerts(slow.store)).toHaveLength(1);
    expect(notified()).toEqual([[`firing ending ${NODE}`], [`resolved ending ${NODE}`]]);

    // The slow instance polls at last: its own resolved post changes nothing at the receiver.
    const before = received();
    await fake().settle(slow.once(), 'the slow instance to poll');
    await fake().until(async () => (await slow.store.outbox('sent')).length === 2, 'the slow instance to post its resolved alert', { within: 10_000 });
    await flushedAfter(before, 'each peer to flush after the slow instance’s resolved post');
    expect(notified()).toEqual([[`firing ending ${NODE}`], [`resolved ending ${NODE}`]]);
  }, 30_000);
});
