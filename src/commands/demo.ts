import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../base/version.js';
import type { App } from '../app/app.js';
import { composeApp } from '../app/compose.js';
import { loadConfig } from '../config/load.js';
import { startSlackPrinter } from '../demo/slack-printer.js';
import { startSmtpPrinter } from '../demo/smtp-printer.js';
import { summaryLines } from '../demo/summary.js';
import { ruleKinds } from '../rules/registry.js';
import { loadScenario, type Scenario } from '../sim/scenario.js';
import { DEFAULT_BUDGETS, type BudgetLimits } from '../sim/budget.js';
import { startSim } from '../sim/server.js';
import { systemClock } from '../base/clock.js';
import { every } from '../base/timers.js';

const DEMO_DIR = join(PACKAGE_ROOT, 'config', 'demo');


/**
 * `avawatch demo`: the simulator, the daemon and a printing Slack receiver, all on
 * loopback; alerts show up in the terminal as they arrive. No network, no credentials.
 */
export async function demoCommand(opts: { forMs?: number | undefined; speed?: number }): Promise<void> {
  const speed = opts.speed ?? 1;
  const stamp = () => new Date(systemClock.now()).toISOString().slice(11, 19);
  const print = (line: string) => console.log(`${stamp()} ${line}`);
  const kinds = Object.keys(ruleKinds);
  const state = mkdtempSync(join(tmpdir(), 'avawatch-demo-'));
  const scenario = loadScenario(join(DEMO_DIR, 'scenario.yaml'));
  // The simulated service meters compute units per real minute: at n× speed the daemon's
  // minute (on the simulated clock) passes n times in one.
  const metered = { ...DEFAULT_BUDGETS, ...scenario.budget };
  const budget = { data: perRealMinute(metered.data, speed), metrics: perRealMinute(metered.metrics, speed) };
  const sim = await startSim({ scenario: { ...scenario, speed: scenario.speed * speed }, budget, held: true });
  const slack = await startSlackPrinter(print);
  const smtp = await startSmtpPrinter(print);
  const env = {
    ...process.env,
    AVAWATCH_DEMO_URL: sim.url,
    AVAWATCH_DEMO_SLACK_URL: slack.url,
    AVAWATCH_DEMO_SMTP_PORT: String(smtp.port),
    AVAWATCH_DEMO_STATE: join(state, 'avawatch.db'),
  };
  const loaded = loadConfig(join(DEMO_DIR, 'avawatch.yaml'), env);
  // At --speed n the daemon runs on the world's clock, timers too: its rules poll n times as
  // often as the host counts, and see what they would see at speed 1 (the same polls between
  // two changes), only sooner.
  // A rule is failing after the same real time as at speed 1: at 8× a busy machine overruns
  // three 0.6 s ticks in under two seconds, which is the demo's pace, not a broken rule.
  loaded.config.health.failingAfter = Math.min(1000, loaded.config.health.failingAfter * speed);
  const { app } = composeApp(loaded, { clock: sim.world.clock.asClock() });
  await app.start();

  console.log('avawatch demo: a simulated chain, the daemon, a Slack receiver and an SMTP server, all on this machine.');
  console.log(`  simulator (Data + Metrics API)  ${sim.url}   scenario: config/demo/scenario.yaml`);
  console.log(`  rules                           config/demo/rules.yaml (one of each of the ${kinds.length} kinds, polling every 5 s)`);
  console.log(`  Slack receiver / SMTP server    ${new URL(slack.url).origin} / smtp://127.0.0.1:${smtp.port} (every alert goes to Slack, critical ones by email too)`);
  console.log(`  status page                     ${app.url}/   (open it in a browser while the demo runs)`);
  console.log(`  metrics                         ${app.url}/metrics`);
  console.log(`  expect${speed === 1 ? '' : ` (at ${speed}× speed: these times pass ${speed} times faster)`}:\n${timeline(scenario).map((l) => `    ${l}`).join('\n')}`);
  console.log(`  stop with Ctrl-C${opts.forMs ? ` (or it ends by itself after ${Math.round(opts.forMs / 1000)}s)` : ''}\n`);

  // The scenario's time starts once every rule has its baseline (a change before a rule's
  // first good poll is part of what it first sees, not news): a busy machine starts slowly.
  await untilSeen(app, 30_000);
  sim.world.clock.run();
  // The scenario's events are applied on the host's time: half a second of the world's each.
  const stopTicking = every(systemClock, 500 / speed, () => sim.tick());
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
    if (opts.forMs) systemClock.setTimer(resolve, opts.forMs, { unref: true });
  });
  stopTicking();
  await app.stop();
  await slack.close();
  await smtp.close();
  await sim.close();
  rmSync(state, { recursive: true, force: true });
  console.log(`\navawatch demo: done; ${slack.received} Slack message(s) and ${smtp.received} email(s) received.`);
  console.log(summaryLines(kinds, slack.alerts, `the scenario has every kind fire by about +${Math.ceil(lastFiringMs(scenario) / 1000 / speed)}s`).join('\n'));
}

/** Until every rule has been evaluated and none is blind (a failed first poll is no baseline), at most `capMs`. */
async function untilSeen(app: App, capMs: number): Promise<void> {
  const end = systemClock.mono() + capMs;
  const seen = () => {
    const blind = app.blindness();
    return blind !== 'starting' && blind.length === 0;
  };
  while (!seen() && systemClock.mono() < end) await systemClock.pause(50);
}

/**
 * What the scenario makes happen, and when: its events' `say`, by time (each alert follows at
 * the next 5 s poll). Each kind writes its lines in src/rules/<kind>/demo.yaml.
 */
function timeline(scenario: Scenario): string[] {
  const said = scenario.events.filter((e) => e.say !== undefined).sort((a, b) => a.at.ms - b.at.ms);
  return said.map(({ at, say }) => `${offset(at).padEnd(5)} ${say}`);
}

/** When the last of the scenario's events has been seen: its time and one 5 s poll. */
function lastFiringMs(scenario: Scenario): number {
  return Math.max(0, ...scenario.events.filter((e) => e.at.relative).map((e) => e.at.ms)) + 5_000;
}

/** `now`, `+30s`, or an absolute time's ISO date. */
function offset(at: { relative: boolean; ms: number }): string {
  if (!at.relative) return new Date(at.ms).toISOString();
  return at.ms === 0 ? 'now' : `+${at.ms / 1000}s`;
}

function perRealMinute(limits: BudgetLimits, speed: number): BudgetLimits {
  return { perMinute: limits.perMinute * speed, perDay: limits.perDay * speed };
}
