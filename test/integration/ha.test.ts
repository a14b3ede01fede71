import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { activeValidator } from '../../src/sim/samples.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { freePort, startAlertmanager, type RunningAlertmanager } from '../helpers/alertmanager.js';
import { waitUntil } from '../helpers/wait.js';

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

describe('high availability: two avawatch instances, a two-peer Alertmanager cluster', () => {
  let sim: SimServer;
  let sink: Awaited<ReturnType<typeof startWebhookSink>>;
  let peers: RunningAlertmanager[] = [];
  let apps: App[] = [];
  let dir: string;

  beforeEach(async () => {
    sim = await startSim();
    sink = await startWebhookSink();
    dir = mkdtempSync(join(tmpdir(), 'avawatch-ha-'));
    const amConfig = `route:\n  receiver: hook\n  group_by: [alertname, node]\n  group_wait: 1s\n  group_interval: 5m\n  repeat_interval: 4h\nreceivers:\n  - name: hook\n    webhook_configs:\n      - url: ${sink.url}\n`;
    const [a, b] = [await freePort(), await freePort()];
    peers = await Promise.all([
      startAlertmanager({ config: amConfig, cluster: { port: a, peers: [b], peerTimeout: '2s' } }),
      startAlertmanager({ config: amConfig, cluster: { port: b, peers: [a], peerTimeout: '2s' } }),
    ]);
  });

  afterEach(async () => {
    await Promise.all(apps.map((a) => a.stop()));
    apps = [];
    await Promise.all(peers.map((p) => p.stop()));
    await sim.close();
    await sink.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function instance(name: string): Promise<App> {
    const home = join(dir, name);
    mkdirSync(home);
    writeFileSync(
      join(home, 'avawatch.yaml'),
      `api: {dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0}
state: {path: "${join(home, 'state.db')}"}
server: {listen: "127.0.0.1:0"}
route: {receivers: [am]}
receivers:
  - name: am
    type: alertmanager
    url: [${peers.map((p) => `"${p.url}"`).join(', ')}]
    resendInterval: 2s
ruleFiles: [rules.yaml]
`,
    );
    // The same rules on both instances: identical labels, so Alertmanager sees one alert.
    writeFileSync(join(home, 'rules.yaml'), `rules:\n  - {name: ending, kind: validation-end, every: 1s, severity: critical, network: mainnet, nodeIds: [${NODE}]}\n`);
    const app = new App({ loaded: loadConfig(join(home, 'avawatch.yaml'), {}), log: createLogger('error', false).log });
    apps.push(app);
    await app.start();
    return app;
  }

  it('one notification per alert reaches the receiver, from two instances posting to both peers', async () => {
    await waitUntil(async () => (await Promise.all(peers.map((p) => p.status()))).every((s) => s.cluster.status === 'ready' && s.cluster.peers.length === 2), 'the two peers to form a cluster', 20_000);
    const now = sim.world.clock.now();
    sim.world.setValidators('mainnet', NODE, [activeValidator({ nodeId: NODE, txHash: 'ending-soon', startTimestamp: now - 86_400, endTimestamp: now + 2 * 86_400 })]);

    const [first, second] = await Promise.all([instance('one'), instance('two')]);
    // Both instances fire the alert and both peers hold it.
    await waitUntil(() => first.store.outbox('sent').length > 0 && second.store.outbox('sent').length > 0, 'both instances to deliver', 15_000);
    for (const peer of peers) await waitUntil(async () => (await peer.alerts()).length === 1, `the alert in ${peer.url}`);

    await waitUntil(() => sink.received.length > 0, 'the notification', 15_000);
    // Past both peers' turns (peer timeout 2s each) and several re-sends of both instances.
    await new Promise((r) => setTimeout(r, 8_000));
    expect(sink.received).toHaveLength(1);
    expect(sink.received[0]?.alerts.map((a) => `${a.status} ${a.labels['alertname']} ${a.labels['node']}`)).toEqual([`firing ending ${NODE}`]);
  }, 60_000);
});
