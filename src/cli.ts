#!/usr/bin/env node
import { Command, Option } from 'commander';
import { parseDuration } from './base/duration.js';
import { ConfigError, configPath, loadConfig, type LoadedConfig } from './config/load.js';
import { missingConfig } from './config/missing.js';
import { logWarnings } from './commands/warnings.js';
import { inShard, parseShard, type Shard } from './base/shard.js';
import { errorText } from './engine/engine.js';
import { alertsCommand, notifyTestCommand, outboxCommand } from './commands/inspect.js';
import { silenceAdd, silenceExpire, silenceList, type SilenceAddOptions } from './commands/silence.js';
import type { HistoryOptions } from './commands/history.js';
import type { SimCommandOptions } from './commands/sim.js';
import { createLogger, type LogSink } from './base/log.js';
import { VERSION } from './base/version.js';

// Argument parsing only; the work happens in commands/ and App. The simulator, demo, rule
// tests and schema load when asked for: the daemon does not carry them (memory, start-up).

interface GlobalOptions {
  config?: string;
  logLevel?: string;
}

const program = new Command('avawatch')
  .description('Monitoring and alerting daemon for Avalanche validator operators')
  .version(VERSION, '-V, --version')
  .option('-c, --config <file>', 'config file (default: $AVAWATCH_CONFIG, else config/avawatch.yaml)')
  .addOption(
    new Option('--log-level <level>', 'log level (overrides log.level)').choices(['trace', 'debug', 'info', 'warn', 'error', 'fatal']),
  )
  .showHelpAfterError();

program
  .command('run')
  .description('run the daemon: evaluate rules on their schedules, deliver alerts, serve /metrics')
  .option('--shard <I/N>', 'evaluate only shard I of N of the rules (split by rule name; every instance gets the same rules and config)')
  .option('--no-watch', 'do not reload when the config or a rule file changes (SIGHUP still reloads)')
  .action(async (opts: { shard?: string; watch: boolean }, cmd: Command) => {
    const { ofShard, shard } = shardOf(opts.shard);
    const { runCommand } = await import('./commands/run.js');
    await runCommand(readConfig(cmd), { ofShard, shard, watch: opts.watch, logLevel: cmd.optsWithGlobals<GlobalOptions>().logLevel });
  });

// init's per-validator options in the order given: each belongs to the --node before it.
const initArgs: Array<{ flag: '--node' | '--network' | '--api' | '--name'; value: string }> = [];
const inOrder = (flag: (typeof initArgs)[number]['flag']) => (value: string) => void initArgs.push({ flag, value });

program
  .command('init')
  .description('write a config that watches your validators with the shipped rules (never overwrites a file)')
  .option('--node <NodeID>', 'a validator of yours (repeat for more); NodeID-…@fuji,http://127.0.0.1:9650 gives its network and API in one', inOrder('--node'))
  .option('--network <network>', 'mainnet (default) or fuji: the network of the --node before it (before any --node: of every node)', inOrder('--network'))
  .option('--api <url>', "the node's own API of the --node before it, e.g. http://127.0.0.1:9650: adds node-health and node-metrics (docs/node.md)", inOrder('--api'))
  .option('--name <name>', 'the name of the --node before it, in alerts and on the page (default validator-1, …)', inOrder('--name'))
  .option('--slack-webhook-url-file <file>', 'a file holding a Slack incoming webhook URL (the URL stays out of the config)')
  .action(async (opts: { slackWebhookUrlFile?: string }, cmd: Command) => {
    const { initCommand } = await import('./commands/init.js');
    const file = configPath(cmd.optsWithGlobals<GlobalOptions>().config, process.env);
    process.exitCode = initCommand({ file, args: initArgs, ...(opts.slackWebhookUrlFile === undefined ? {} : { slackWebhookUrlFile: opts.slackWebhookUrlFile }) });
  });

program
  .command('check')
  .description('validate the config and rule files and summarise them; never calls the network')
  .option('--shard <I/N>', 'list only the rules `run --shard I/N` would evaluate')
  .action(async (opts: { shard?: string }, cmd: Command) => {
    const { ofShard } = shardOf(opts.shard);
    const all = load(cmd, true).loaded;
    const { checkCommand } = await import('./commands/check.js');
    // Not fail() when over budget: process.exit() would cut off the summary still on its way down a pipe.
    if (!checkCommand(all, ofShard(all), opts.shard)) process.exitCode = 1;
  });

program
  .command('once')
  .description('evaluate every rule (or one) once, commit state as the daemon does, and print the alerts; exits 1 when a rule failed')
  .option('--rule <name>', 'evaluate only this rule')
  .option('--json', 'one JSON object a line: each alert ({"type":"alert",…}), then what each rule saw of each validator')
  .option('--send', 'deliver due notifications now (otherwise they wait in the outbox for the daemon)')
  .option('--send-timeout <duration>', 'how long --send may take', '30s')
  .action(async (opts: { rule?: string; json?: boolean; send?: boolean; sendTimeout: string }, cmd: Command) => {
    const loaded = readConfig(cmd);
    if (opts.rule !== undefined && !loaded.rules.some((r) => r.name === opts.rule)) {
      fail(`no rule named "${opts.rule}"; rules: ${loaded.rules.map((r) => r.name).join(', ') || '(none)'}`);
    }
    const sendTimeoutMs = parseSeconds(opts.sendTimeout);
    const { onceCommand } = await import('./commands/once.js');
    process.exitCode = await onceCommand(loaded, { rule: opts.rule, json: opts.json, send: opts.send, sendTimeoutMs, logLevel: cmd.optsWithGlobals<GlobalOptions>().logLevel });
  });

program
  .command('alerts')
  .description('list the state alerts firing now (reads the state file; safe beside a running daemon)')
  .option('--json', 'one JSON object a line: each alert ({"type":"alert",…}), then what each rule saw of each validator')
  .action(async (opts: { json?: boolean }, cmd: Command) => {
    await alertsCommand(load(cmd).loaded, opts.json === true);
  });

program
  .command('validators')
  .description('each validator as the last evaluations left it: status, uptime, end, how long it can still be down and be paid, its auto-renew cycle (reads the state file; safe beside a running daemon)')
  .option('--json', 'one JSON object per validator and line')
  .action(async (opts: { json?: boolean }, cmd: Command) => {
    const { validatorsCommand } = await import('./commands/validators.js');
    for (const line of await validatorsCommand(load(cmd).loaded, opts.json === true)) console.log(line);
  });

program
  .command('outbox')
  .description('list notifications in the outbox: pending, dead-lettered and sent')
  .addOption(new Option('--state <state>', 'only rows in this state').choices(['pending', 'dead', 'sent', 'muted']))
  .option('--json', 'one JSON object per row and line')
  .action(async (opts: { state?: 'pending' | 'dead' | 'sent' | 'muted'; json?: boolean }, cmd: Command) => {
    await outboxCommand(load(cmd).loaded, opts.state, opts.json === true);
  });

program
  .command('history')
  .description('events and state changes, newest first, and a validator\'s sampled figures (reads the state file; safe beside a running daemon)')
  .option('--validator <name|NodeID>', 'only what is about this validator (an inventory name or a NodeID), with its uptime and L1 balance figures')
  .option('--since <duration|ISO time>', 'from this long ago (e.g. 7d) or this time', '24h')
  .option('--json', 'one JSON object per entry (and figure) and line')
  .action(async (opts: HistoryOptions, cmd: Command) => {
    const { historyCommand } = await import('./commands/history.js');
    try {
      const { lines, notes } = await historyCommand(load(cmd).loaded, opts);
      for (const line of lines) console.log(line);
      for (const note of notes) console.error(note);
    } catch (err) {
      fail(errorText(err));
    }
  });

const silence = program.command('silence').description('mute notifications for a while (maintenance): add, list, expire');

silence
  .command('add')
  .description('mute notifications whose labels match, from now for --for or until --until')
  .option('--match <matcher>', 'name=value or name=~regex; repeat for more (all must match)', (v: string, all: string[]) => [...all, v], [] as string[])
  .option('--for <duration>', 'how long, e.g. 2h')
  .option('--until <date>', 'until this ISO date')
  .requiredOption('--comment <text>', 'why (shown with every muted notification)')
  .option('--author <name>', 'who (default: the user)')
  .option('--force', 'add it even if no configured rule or kind produces a label or value it names')
  .action(async (opts: SilenceAddOptions, cmd: Command) => {
    try {
      console.log(await silenceAdd(load(cmd).loaded, opts));
    } catch (err) {
      fail(errorText(err));
    }
  });

silence
  .command('list')
  .description('silences in force (or --all)')
  .option('--all', 'expired ones too')
  .option('--json', 'one JSON object per silence and line')
  .action(async (opts: { all?: boolean; json?: boolean }, cmd: Command) => {
    for (const line of await silenceList(load(cmd).loaded, opts.all === true, opts.json === true)) console.log(line);
  });

silence
  .command('expire')
  .description('end a silence now')
  .argument('<id>', 'silence id, as `silence list` shows it (#12 or 12)')
  .action(async (id: string, _opts, cmd: Command) => {
    const n = Number(id.replace(/^#/, ''));
    if (!Number.isInteger(n)) fail(`"${id}" is not a silence id`);
    if (!(await silenceExpire(load(cmd).loaded, n))) fail(`no silence #${n} in force`);
    console.log(`silence #${n} expired`);
  });

program
  .command('notify-test')
  .description('send a test message to a receiver now and say whether it arrived')
  .argument('<receiver>', 'receiver name from the config')
  .action(async (name: string, _opts, cmd: Command) => {
    process.exitCode = (await notifyTestCommand(load(cmd).loaded, name)) ? 0 : 1;
  });

program
  .command('sim')
  .description('run the Data API and Metrics API simulator: a world, a simulated clock, scenarios, faults')
  .option('--port <port>', 'port to listen on', '8080')
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .option('--scenario <file>', 'scenario YAML: the world at the start and timed changes (docs/simulator.md)')
  .option('--seed <n>', 'seed of the random faults')
  .action(async (opts: SimCommandOptions) => {
    try {
      const { simCommand } = await import('./commands/sim.js');
      await simCommand(opts);
    } catch (err) {
      if (err instanceof ConfigError) fail(`scenario has problems:\n${err.message}`);
      throw err;
    }
  });

program
  .command('demo')
  .description('one-command demo: a simulated chain, the daemon, and a Slack receiver and an SMTP server that print what they get, on loopback; no network, no credentials')
  .option('--for <duration>', 'stop by itself after this long (e.g. 90s)')
  .option('--speed <n>', 'run the scenario n times faster: its world, the daemon\'s clock and the rules\' polls (1 to 10)', '1')
  .action(async (opts: { for?: string; speed: string }) => {
    const forMs = opts.for === undefined ? undefined : parseDuration(opts.for);
    if (opts.for !== undefined && forMs === undefined) fail(`--for: "${opts.for}" is not a duration such as 90s or 2m`);
    const speed = Number(opts.speed);
    if (!(speed >= 1 && speed <= 10)) fail(`--speed: "${opts.speed}" is not a number from 1 to 10`);
    const { demoCommand } = await import('./commands/demo.js');
    await demoCommand({ forMs, speed });
  });

program
  .command('test')
  .description('run rule tests: rule files against the simulator over simulated time (docs/rule-tests.md)')
  .argument('<files...>', 'rule test files (*.test.yaml)')
  .action(async (files: string[]) => {
    const { testCommand } = await import('./commands/test.js');
    process.exitCode = (await testCommand(files)) ? 0 : 1;
  });

program
  .command('schema')
  .description('print the JSON Schema of the config or of rule files (for editors), or write both with --out')
  .argument('[which]', 'config or rules')
  .option('--out <dir>', 'write config.schema.json and rules.schema.json (or only [which]) into this directory')
  .action(async (which: string | undefined, opts: { out?: string }) => {
    const { schemaCommand } = await import('./commands/schema.js');
    try {
      schemaCommand(which, opts.out);
    } catch (err) {
      fail(errorText(err));
    }
  });

/** The config, or its problems printed and exit 1. */
function readConfig(cmd: Command): LoadedConfig {
  const file = configPath(cmd.optsWithGlobals<GlobalOptions>().config, process.env);
  const missing = missingConfig(file, cmd.optsWithGlobals<GlobalOptions>().config, process.env, commandPath(cmd));
  if (missing !== undefined) fail(missing);
  try {
    return loadConfig(file, process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.report());
      process.exit(1);
    }
    throw err;
  }
}

/** For the commands that build no App. `sends`: the command delivers (or checks) notifications, so warnings about receivers concern it. */
function load(cmd: Command, sends = false): { loaded: LoadedConfig; sink: LogSink } {
  const loaded = readConfig(cmd);
  const sink = createLogger(cmd.optsWithGlobals<GlobalOptions>().logLevel ?? loaded.config.log.level);
  sink.setSecrets(loaded.secrets);
  logWarnings(sink.log, loaded, sends);
  return { loaded, sink };
}

/** --shard I/N: that shard, and a filter keeping its rules (all rules without the option). */
function shardOf(text: string | undefined): { shard?: Shard; ofShard: (l: LoadedConfig) => LoadedConfig } {
  if (text === undefined) return { ofShard: (l) => l };
  const shard = parseShard(text) ?? fail(`--shard: "${text}" is not I/N with 1 ≤ I ≤ N, e.g. 1/3`);
  return { shard, ofShard: (l) => ({ ...l, rules: l.rules.filter((r) => inShard(r.name, shard)) }) };
}

/** The command as typed, e.g. `silence list`. */
function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

function parseSeconds(text: string): number {
  return parseDuration(text) ?? fail(`--send-timeout: "${text}" is not a duration such as 30s`);
}

function fail(message: string): never {
  console.error(`avawatch: ${message}`);
  process.exit(1);
}

program.parseAsync().catch((err: unknown) => {
  console.error(`avawatch: ${errorText(err)}`);
  process.exit(1);
});
