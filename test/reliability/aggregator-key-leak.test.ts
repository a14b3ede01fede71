import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { composeApp } from '../../src/app/compose.js';
import { firingAlerts } from '../../src/alerts/view.js';
import { loadConfig } from '../../src/config/load.js';
import { startSim } from '../../src/sim/server.js';
import { postText, startSlackReceiver } from '../helpers/slack-receiver.js';
import { useFakeTime } from '../helpers/fake-time.js';

// A gateway in front of the signature aggregator answers 502 and quotes the request's
// headers, the API key among them. The signature-aggregator alert quotes the service's
// message: the key must reach none of Slack, the status page, /api/v1/alerts, /metrics,
// the log or the state file. They say <secret> where it was.

const API_KEY = 'APIKEY-aggregator-4b1e-never-print';
const TX = '2sJ6UoPSrqkpdcNWvNFnudjRJdvxVLdXgDaGGD4mfhJm5aULHF';

describe('a 502 whose message echoes the API key, quoted by the signature-aggregator alert', () => {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('reaches Slack, the status page, /api/v1/alerts, /metrics, the log and the state file as <secret>', async () => {
    // The App on fake time (test/helpers/fake-time.ts); the simulator and Slack real servers.
    const t = useFakeTime();
    cleanups.push(() => t.restore());
    const sim = await startSim();
    cleanups.push(() => sim.close());
    const slack = await startSlackReceiver({ wait: (check, what, ms) => t.until(check, what, ms === undefined ? {} : { within: ms }) });
    cleanups.push(() => slack.close());
    const dir = mkdtempSync(join(tmpdir(), 'avawatch-aggregator-leak-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const config = join(dir, 'avawatch.yaml');
    writeFileSync(
      config,
      `api: {dataUrl: "${sim.url}", metricsUrl: "${sim.url}", apiKey: "\${KEY}", retries: 0}
state: {path: "${join(dir, 'state.db')}"}
server: {listen: "127.0.0.1:0"}
route: {receivers: [slack]}
receivers:
  - {name: slack, type: slack, webhookUrl: "${slack.webhookUrl}", minInterval: 10ms}
ruleFiles: [rules.yaml]
`,
    );
    writeFileSync(join(dir, 'rules.yaml'), `rules:\n  - {name: aggregator, kind: signature-aggregator, every: 1s, severity: critical, network: mainnet, txHashes: [${TX}], failures: 1}\n`);
    const logged: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => {
      logged.push(String(c));
      return true;
    });
    // Every probe meets the gateway while the test reads what the alert reached.
    sim.world.faults.push(...Array.from({ length: 200 }, () => ({ status: 502, pathIncludes: '/signatureAggregator/', echoHeaders: true })));
    const loaded = loadConfig(config, { KEY: API_KEY });
    const { app } = composeApp(loaded, { logLevel: 'debug', readable: false, clock: t.clock });
    cleanups.push(() => t.settle(app.stop(), 'the App to stop'));
    await app.start();

    const [post] = await slack.waitForPosts(1, 15_000);
    await t.until(async () => (await firingAlerts(app.store)).length === 1, 'the alert firing');
    const statusPage = await (await fetch(`${app.url}/`)).text();
    const alertsApi = await (await fetch(`${app.url}/api/v1/alerts`)).text();
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    await t.settle(app.stop(), 'the App to stop');
    const stateFile = readdirSync(dir)
      .filter((f) => f.startsWith('state.db'))
      .map((f) => readFileSync(join(dir, f)).toString('latin1'))
      .join('\n');

    // What the operator reads: the gateway's message, with <secret> where the key was.
    const text = postText(post!);
    expect(text).toContain(`The signature aggregator on mainnet failed 1 probe in a row for ${TX}: HTTP 502: injected fault; the request's headers:`);
    expect(text).toContain('x-glacier-api-key: &lt;secret&gt;');
    expect(alertsApi).toContain('x-glacier-api-key: <secret>');
    expect(statusPage).toContain('x-glacier-api-key: &lt;secret&gt;');
    const places = { slack: slack.posts.map((p) => JSON.stringify(p)).join('\n'), statusPage, alertsApi, metrics, log: logged.join(''), stateFile };
    const leaks = Object.entries(places).filter(([, t]) => t.includes(API_KEY)).map(([where]) => where);
    expect(leaks).toEqual([]);
    // The gateway really did quote the key: the scrub is what kept it out.
    expect(sim.requests.some((r) => r.includes('/signatureAggregator/'))).toBe(true);
  }, 30_000);
});
