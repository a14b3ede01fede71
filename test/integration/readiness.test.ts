import { storedStates } from '../helpers/stored-states.js';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app/app.js';
import { activeValidator } from '../../src/sim/samples.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { captureStderr, startApp } from '../helpers/app.js';
import { writeProject, type TempProject } from '../helpers/harness.js';
import { useFakeTime, type FakeTime } from '../helpers/fake-time.js';

// A start that has not seen the service must not say "ready": /readyz, avawatch_ready and
// the status page say "starting" until every interval rule has been evaluated once. The App
// runs on fake time (test/helpers/fake-time.ts); the service behind its gate is real HTTP.

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const NODE2 = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';

/** The simulator behind a gate: requests wait until open() (the service not answered yet), and again after shut(). */
async function gated(sim: SimServer): Promise<{ url: string; open: () => void; shut: () => void; held: () => number; close: () => Promise<void> }> {
  let isOpen = false;
  const waiting: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    const forward = () => {
      void fetch(`${sim.url}${req.url ?? '/'}`, { method: req.method ?? 'GET' }).then(async (answer) => {
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
      });
    };
    if (isOpen) forward();
    else waiting.push(forward);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    open: () => {
      isOpen = true;
      for (const f of waiting.splice(0)) f();
    },
    shut: () => {
      isOpen = false;
    },
    held: () => waiting.length,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

describe('daemon: readiness at start', () => {
  let project: TempProject | undefined;
  let app: App | undefined;
  let time: FakeTime | undefined;
  const cleanups: Array<() => Promise<unknown> | unknown> = [];

  afterEach(async () => {
    if (app) await time?.settle(app.stop(), 'the App to stop');
    app = undefined;
    time?.restore();
    time = undefined;
    vi.restoreAllMocks();
    for (const c of cleanups.splice(0).reverse()) await c();
    project?.cleanup();
  });

  it('says "starting: 1 rule not evaluated yet" until the first evaluation, then ready', async () => {
    const sim = await startSim();
    cleanups.push(() => sim.close());
    const now = sim.world.clock.now();
    for (const n of [NODE, NODE2]) sim.world.setValidators('mainnet', n, [activeValidator({ nodeId: n, txHash: `p${n.slice(-4)}`, startTimestamp: now - 86_400, endTimestamp: now + 200 * 86_400 })]);
    const gate = await gated(sim);
    cleanups.push(() => gate.close());
    project = writeProject({ dataUrl: gate.url, nodeIds: [NODE], every: '1m', timeout: '30s' });
    captureStderr();
    const t = (time = useFakeTime());
    const a = (app = await startApp(project.configFile, 'info', t.clock));
    await t.until(() => gate.held() > 0, 'the first poll, held at the gate');

    const starting = await fetch(`${a.url}/readyz`);
    expect([starting.status, await starting.text()]).toEqual([503, 'not ready:\n- starting: 1 rule not evaluated yet (my-validators)\n']);
    expect(await (await fetch(`${a.url}/metrics`)).text()).toMatch(/^avawatch_ready 0$/m);
    const page = await (await fetch(`${a.url}/`)).text();
    expect(page).toContain('<span class="bad">starting</span>');
    expect(page).toContain('<li>starting: 1 rule not evaluated yet (my-validators)</li>');

    gate.open();
    await t.until(async () => (await fetch(`${a.url}/readyz`)).status === 200, 'ready after the first evaluation');
    expect((await storedStates(a.store, 'my-validators'))[NODE]).toMatchObject({ period: { status: 'active' } });
    expect(await (await fetch(`${a.url}/metrics`)).text()).toMatch(/^avawatch_ready 1$/m);
    expect(await (await fetch(`${a.url}/`)).text()).toContain('<span class="good">ready</span>');

    // A rule a reload adds is waited for too; the one already evaluated is not.
    gate.shut();
    writeFileSync(join(project.dir, 'rules', 'more.yaml'), `rules:\n  - {name: ending, kind: validation-end, every: 1m, severity: warning, network: mainnet, nodeIds: [${NODE2}]}\n`);
    expect(await t.settle(a.reload('test'), 'the reload')).toBe(true);
    await t.until(() => gate.held() > 0, "the new rule's first poll, held at the gate");
    expect(await (await fetch(`${a.url}/readyz`)).text()).toBe('not ready:\n- starting: 1 rule not evaluated yet (ending)\n');
    gate.open();
    await t.until(async () => (await fetch(`${a.url}/readyz`)).status === 200, 'ready after its first evaluation');
  });
});
