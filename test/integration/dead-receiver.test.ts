import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { applyChange, worldChange } from '../../src/sim/scenario.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { startApp } from '../helpers/app.js';
import { useFakeTime, type FakeTime } from '../helpers/fake-time.js';

// Issue 37: the only receiver revoked (404 on every post) and the alert dead-lettered, the
// heartbeat still said "every source answered". Now the heartbeat pings its failure URL
// naming the receiver, /readyz and the status page say it, until a notification gets through.

const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('a dead receiver fails the heartbeat and /readyz', () => {
  let sim: SimServer;
  let monitor: Server;
  let hook: Server;
  let pings: string[];
  let revoked: boolean;
  let dir: string;
  let app: App | undefined;
  let time: FakeTime | undefined;
  beforeEach(async () => {
    sim = await startSim();
    pings = [];
    revoked = true;
    monitor = createServer((req, res) => {
      pings.push(req.url ?? '');
      req.resume().on('end', () => res.end('OK'));
    });
    // A webhook revoked on the other side: 404 on every post, until it is back.
    hook = createServer((req, res) => req.resume().on('end', () => res.writeHead(revoked ? 404 : 200, { 'content-type': 'text/plain' }).end(revoked ? 'no such hook' : 'ok')));
    dir = mkdtempSync(join(tmpdir(), 'avawatch-dead-receiver-'));
  });
  afterEach(async () => {
    if (app) await time?.settle(app.stop(), 'the App to stop');
    time?.restore();
    time = undefined;
    app = undefined;
    await sim.close();
    await new Promise((r) => monitor.close(r));
    hook.closeAllConnections();
    await new Promise((r) => hook.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('pings the failure URL naming the receiver while its notification is dead-lettered, and says it on /readyz and the page; green once one is delivered', async () => {
    const ping = `${await listen(monitor)}/ping/5e1f-uuid`;
    const hookUrl = `${await listen(hook)}/hooks/ops`;
    const config = join(dir, 'avawatch.yaml');
    writeFileSync(
      config,
      `api: {dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0, dedupeWindow: 0s}\nstate: {path: "${join(dir, 'state.db')}"}\nserver: {listen: "127.0.0.1:0"}\n` +
        `heartbeat: {url: "${ping}", every: 1h}\nroute: {receivers: [ops-hook]}\nreceivers:\n  - {name: ops-hook, type: webhook, url: "${hookUrl}", minInterval: 0s}\nruleFiles: [rules.yaml]\n`,
    );
    // A is not validating: validator-status fires at its first evaluation.
    writeFileSync(join(dir, 'rules.yaml'), `rules:\n  - { name: v, kind: validator-status, every: 1h, severity: critical, network: mainnet, nodeIds: [${A}] }\n`);
    const t = (time = useFakeTime());
    app = await startApp(config, 'silent', t.clock);
    await t.until(async () => (await app?.store.outbox('dead'))?.length === 1, 'the alert dead-lettered');

    const beat = await app.heartbeat();
    expect(beat).toMatchObject({ outcome: 'fail', why: [expect.stringMatching(/^receiver ops-hook: 1 notification dead-lettered, the last \d+s ago \(webhook receiver "ops-hook": HTTP 404/)] });
    expect(pings).toEqual(['/ping/5e1f-uuid/fail']);
    const readyz = await fetch(`${app.url}/readyz`);
    expect(readyz.status).toBe(503);
    expect(await readyz.text()).toContain('receiver ops-hook: 1 notification dead-lettered');
    const page = await (await fetch(`${app.url}/`)).text();
    expect(page).toContain('receiver ops-hook: 1 notification dead-lettered');
    expect(page).toMatch(/<td data-label="Receiver">ops-hook <span class="muted">\(webhook\)<\/span><\/td>\s*<td data-label="State"><span class="bad">failing<\/span>/);

    // The hook is back; the next notification (A starts validating: resolved) gets through.
    revoked = false;
    applyChange(sim.world, worldChange.parse({ validations: [{ nodeId: A, txHash: 'tx-a', start: '-1d', end: '+200d' }] }), sim.world.clock.nowMs());
    await app.once();
    await t.until(async () => (await app?.store.outbox('sent'))?.length === 1, 'the resolution delivered');
    expect(await app.heartbeat()).toMatchObject({ outcome: 'ok', why: [] });
    expect(app.readiness()).toEqual({ ready: true, problems: [] });
    expect(pings.at(-1)).toBe('/ping/5e1f-uuid');
    expect(await (await fetch(`${app.url}/`)).text()).toMatch(/ops-hook <span class="muted">\(webhook\)<\/span><\/td>\s*<td data-label="State"><span class="good">enabled<\/span>/);
  });
});
