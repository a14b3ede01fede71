import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { composeApp } from '../../src/app/compose.js';
import { GROUPING } from '../../src/commands/init.js';
import { loadConfig } from '../../src/config/load.js';
import { SimClock } from '../../src/sim/clock.js';
import { applyChange, worldChange } from '../../src/sim/scenario.js';
import { startSim } from '../../src/sim/server.js';
import { World } from '../../src/sim/world.js';
import { renderStatusPage } from '../../src/status/page.js';
import { startSlackReceiver, type SlackReceiver } from '../helpers/slack-receiver.js';

// One outage, one message: the data service answers 503 for three minutes to eight rules; each
// receiver hears one "avawatch cannot see" and one "sees again", not eight of each. A rule that
// fails for its own reason meanwhile still has its own alert. On the simulator's clock.

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
/** Only the rule `odd` asks about it, and the service refuses that request (400): the rule's own fault. */
const ODD = 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu';
const START = Date.parse('2026-03-01T15:20:00Z');
const MINUTE = 60_000;
const RULES = ['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8'];

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

interface Hook {
  url: string;
  bodies: Array<{ status: string; alerts: Array<{ status: string; summary: string }> }>;
}

/** A webhook receiver on loopback that keeps what it was sent. */
async function startHook(): Promise<Hook> {
  const bodies: Hook['bodies'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Hook['bodies'][number]);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(() => new Promise((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies };
}

/** The service behind a switch: while down it answers 503; a request about ODD is always refused (400). */
async function startFront(target: string): Promise<{ url: string; down: (on: boolean) => void }> {
  let isDown = false;
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (decodeURIComponent(path).includes(ODD)) return void res.writeHead(400, { 'content-type': 'application/json' }).end('{"statusCode":400,"message":"nodeIds: not a validator of this network"}');
    if (isDown) return void res.writeHead(503, { 'content-type': 'application/json' }).end('{"statusCode":503,"message":"Service Unavailable"}');
    void fetch(`${target}${path}`).then(async (answer) => {
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(() => {
    server.closeAllConnections();
    return new Promise((r) => server.close(() => r()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, down: (on) => (isDown = on) };
}

async function start(withOdd: boolean) {
  const world = new World(new SimClock(START, 0));
  applyChange(world, worldChange.parse({ validations: [{ nodeId: NODE, txHash: 'tx-1', start: '-10d', end: '+300d', status: 'active' }] }), START);
  const sim = await startSim({ world, budget: { data: { perMinute: 1e9, perDay: 1e12 }, metrics: { perMinute: 1e9, perDay: 1e12 } } });
  cleanup.push(() => sim.close());
  const front = await startFront(sim.url);
  const slack: SlackReceiver = await startSlackReceiver();
  cleanup.push(() => slack.close());
  const hook = await startHook();
  const dir = mkdtempSync(join(tmpdir(), 'avawatch-outage-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const rule = (name: string, node: string) => `  - { name: ${name}, kind: validation-end, every: 1m, severity: warning, network: mainnet, nodeIds: [${node}], warnBefore: [1d] }`;
  writeFileSync(join(dir, 'rules.yaml'), ['rules:', ...RULES.map((r) => rule(r, NODE)), ...(withOdd ? [rule('odd', ODD)] : []), ''].join('\n'));
  writeFileSync(
    join(dir, 'avawatch.yaml'),
    [
      `api: { dataUrl: "${front.url}", metricsUrl: "${front.url}", retries: 0, timeout: 5s, budget: { perMinute: 1000000000, perDay: 1000000000000 } }`,
      `state: { path: ${JSON.stringify(join(dir, 'state.db'))} }`,
      'receivers:',
      `  - { name: slack, type: slack, webhookUrl: "${slack.webhookUrl}", minInterval: 0s }`,
      `  - { name: hook, type: webhook, url: "${hook.url}" }`,
      'route:',
      '  receivers: [slack, hook]',
      ...GROUPING,
      'ruleFiles: [rules.yaml]',
      '',
    ].join('\n'),
  );
  const app = composeApp(loadConfig(join(dir, 'avawatch.yaml'), {}), { logLevel: 'silent', readable: false, clock: world.clock.asClock() }).app;
  cleanup.push(() => app.stop());
  /** Every rule polled once a minute, as the scheduler would, delivering what is due. */
  const minutes = async (n: number) => {
    for (let i = 0; i < n; i++) {
      await app.once();
      await app.delivery.drain(0);
      world.clock.advance(MINUTE);
    }
  };
  return { app, front, slack, hook, minutes };
}

const slackText = (p: SlackReceiver['posts'][number]) => JSON.stringify(p.body);

describe('one outage, one message per receiver', () => {
  it('the data service answering 503 for three minutes to eight rules: one firing and one resolved message each for Slack and a webhook', async () => {
    const run = await start(false);
    await run.minutes(5);
    expect(run.slack.posts).toHaveLength(0);
    run.front.down(true);
    await run.minutes(3);
    // The third failed poll in a row fires (health.failingAfter 3): one alert for the eight rules.
    const snapshot = await run.app.statusSnapshot();
    expect(snapshot.alerts.map((a) => `${a.rule} ${a.labels['alertname']} ${a.labels['source']}`)).toEqual(['avawatch rule-failing data-service']);
    expect(snapshot.alerts[0]?.summary).toBe('avawatch cannot see: the data service answers 503 since 15:25 UTC, 8 rules');
    expect(snapshot.alerts[0]?.details['Rules']).toBe(RULES.map((r) => `${r} (3 failed)`).join(', '));
    // The page and /readyz: one line for the cause, naming its rules, and one firing alert.
    expect(snapshot.ready.problems).toEqual([`the data service answers 503 since 15:25 UTC: 8 rules failing (${RULES.join(', ')}): data API GET /v1/networks/mainnet/validators: HTTP 503: Service Unavailable`]);
    const page = renderStatusPage(snapshot);
    expect(page).toContain('Firing alerts (1)');
    const alertsSection = /<section id="alerts">[\s\S]*?<\/section>/.exec(page)?.[0] ?? '';
    expect(alertsSection.match(/<td data-label="Summary">/g)).toHaveLength(1);
    expect(alertsSection).toContain('avawatch cannot see: the data service answers 503 since 15:25 UTC, 8 rules');
    const problems = /<ul class="bad">[\s\S]*?<\/ul>/.exec(page)?.[0] ?? '';
    expect(problems.match(/<li>/g)).toHaveLength(1);
    expect(run.app.blindness()).toEqual([expect.stringMatching(/^the data service answers 503 since 15:25 UTC: 8 rules failing \(r1, r2, r3, r4, r5, r6, r7, r8\)/)]);

    run.front.down(false);
    await run.minutes(10);
    expect(run.slack.posts.map(slackText)).toEqual([
      expect.stringContaining('avawatch cannot see: the data service answers 503 since 15:25 UTC, 8 rules'),
      expect.stringContaining('avawatch sees again: the data service answers, 8 rules evaluate again'),
    ]);
    expect(run.slack.posts[0] && slackText(run.slack.posts[0])).not.toContain('is blind');
    expect(run.hook.bodies.map((b) => `${b.status}: ${b.alerts.map((a) => a.summary).join(' | ')}`)).toEqual([
      'firing: avawatch cannot see: the data service answers 503 since 15:25 UTC, 8 rules',
      'resolved: avawatch sees again: the data service answers, 8 rules evaluate again',
    ]);
    expect((await run.app.statusSnapshot()).alerts).toEqual([]);
    expect(run.app.readiness()).toEqual({ ready: true, problems: [] });
  });

  it('a rule failing for its own reason (a request only it makes, refused) keeps its own alert beside the outage\'s one', async () => {
    const run = await start(true);
    await run.minutes(5);
    run.front.down(true);
    await run.minutes(3);
    const firing = (await run.app.statusSnapshot()).alerts.map((a) => `${a.rule}: ${a.summary}`).sort();
    expect(firing).toEqual([
      'avawatch: avawatch cannot see: the data service answers 503 since 15:25 UTC, 8 rules',
      expect.stringMatching(/^odd: rule "odd" is blind: its last \d+ evaluations failed \(data API GET \S+: HTTP 400: nodeIds: not a validator of this network\)$/),
    ]);
    run.front.down(false);
    await run.minutes(10);
    const texts = run.slack.posts.map(slackText);
    expect(texts.filter((t) => t.includes('cannot see'))).toHaveLength(1);
    expect(texts.filter((t) => t.includes('sees again'))).toHaveLength(1);
    expect(texts.filter((t) => t.includes('rule \\"odd\\" is blind'))).toHaveLength(1);
    // The outage is over; odd's own failure is not: it alone still fires.
    expect((await run.app.statusSnapshot()).alerts.map((a) => a.rule)).toEqual(['odd']);
  });
});
