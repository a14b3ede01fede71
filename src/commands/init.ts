import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../base/version.js';
import { ConfigError, loadConfig } from '../config/load.js';

// `avawatch init`: a working config for one's own validators, watched by the shipped profile.

/** The shipped rule files that watch every inventory validator (`validators: all`). */
export const PROFILE_RULE_FILES = ['validators.yaml', 'validation-end.yaml', 'validator-health.yaml', 'delegation-end.yaml', 'block-production.yaml', 'network-baseline.yaml'] as const;

/** The shipped rule files that read the validators' own APIs (`api:`): added with --api, as the shipped config loads them. */
export const NODE_RULE_FILES = ['node-health.yaml', 'node-metrics.yaml', 'node-upgrade.yaml'] as const;

/** One validator as the arguments give it: `--node` and the `--network`, `--api`, `--name` after it. */
export interface InitValidator {
  nodeId: string;
  /** Default `validator-1`, `validator-2`, … by position. */
  name?: string;
  /** Default mainnet (or a --network given before any --node). */
  network?: 'mainnet' | 'fuji';
  /** Its node's own API (http://127.0.0.1:9650): node-health, node-metrics and node-upgrade read it. */
  api?: string;
}

export interface InitOptions {
  /** Where to write; never overwritten. */
  file: string;
  validators: readonly InitValidator[];
  /** A file holding the Slack webhook URL (the URL itself never lands in the config). */
  slackWebhookUrlFile?: string;
  /** The package's rules/ directory (tests point elsewhere). */
  rulesDir?: string;
}

/** `init`'s per-validator options, in the order given on the command line. */
export type InitArg = { flag: '--node' | '--network' | '--api' | '--name'; value: string };

export class InitError extends Error {
  override readonly name = 'InitError';
}

/**
 * The validators the arguments describe: each --network, --api and --name belongs to the
 * --node before it; `--node NodeID@network,api` says the same in one. A --network before any
 * --node is the default of every node (as init took it before). Throws InitError naming the argument.
 */
export function initValidators(args: readonly InitArg[]): InitValidator[] {
  const out: InitValidator[] = [];
  let network: 'mainnet' | 'fuji' | undefined;
  for (const { flag, value } of args) {
    const arg = `${flag} ${value}`;
    if (flag === '--node') {
      out.push(compactNode(value));
      continue;
    }
    const v = out.at(-1);
    if (flag === '--network' && !v) {
      if (network !== undefined) throw new InitError(`${arg}: a second --network before any --node; put each after the --node it belongs to`);
      network = networkOf(value, arg);
      continue;
    }
    if (!v) throw new InitError(`${arg}: given before any --node; put it after the --node it belongs to (--node NodeID-… ${arg})`);
    const key = flag === '--network' ? 'network' : flag === '--api' ? 'api' : 'name';
    if (v[key] !== undefined) throw new InitError(`${arg}: ${v.nodeId} already has ${flag} ${v[key]}; each --node takes its own ${flag}, right after it`);
    if (key === 'network') v.network = networkOf(value, arg);
    else v[key] = value;
  }
  return out.map((v) => (v.network === undefined && network !== undefined ? { ...v, network } : v));
}

/** `NodeID-…`, `NodeID-…@fuji` or `NodeID-…@fuji,http://127.0.0.1:9650`. */
function compactNode(value: string): InitValidator {
  const m = /^([^@,]*)(?:@([^,]*))?(?:,(.*))?$/.exec(value);
  const [nodeId, network, api] = [m?.[1] ?? value, m?.[2], m?.[3]];
  const arg = `--node ${value}`;
  if (nodeId === '') throw new InitError(`${arg}: expected NodeID-…, NodeID-…@network or NodeID-…@network,api`);
  return { nodeId, ...(network === undefined ? {} : { network: networkOf(network, arg) }), ...(api === undefined ? {} : { api }) };
}

function networkOf(value: string, arg: string): 'mainnet' | 'fuji' {
  if (value === 'mainnet' || value === 'fuji') return value;
  if (value === 'testnet') return 'fuji';
  throw new InitError(`${arg}: unknown network "${value}": expected mainnet or fuji`);
}

/** Writes the config; returns its text. Throws InitError for a file that exists or bad arguments. */
export function writeInitConfig(o: InitOptions): string {
  const file = resolve(o.file);
  if (existsSync(file)) throw new InitError(`${o.file} exists: init never overwrites a config; add your validators to its validators: list, or pass -c with a new file`);
  if (o.validators.length === 0) throw new InitError('name at least one validator: --node NodeID-…');
  for (const v of o.validators) {
    if (v.api !== undefined && !/^https?:\/\/[^\s/]+/.test(v.api)) throw new InitError(`--api ${v.api}: expected the node's API URL, such as http://127.0.0.1:9650`);
  }
  const text = initConfigText({ ...o, file });
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text, { flag: 'wx' });
  return text;
}

export function initConfigText(o: InitOptions): string {
  const dir = dirname(resolve(o.file));
  const rulesDir = o.rulesDir ?? join(PACKAGE_ROOT, 'rules');
  const ruleFile = (name: string) => yamlString(pathFrom(dir, resolve(rulesDir, name)));
  const api = (url: string | undefined) =>
    url === undefined ? `    # api: http://127.0.0.1:9650   # its own AvalancheGo API: add it, and rules/node-health.yaml, node-metrics.yaml and node-upgrade.yaml watch the node from inside (docs/node.md)` : `    api: ${yamlString(url)}   # node-health, node-metrics and node-upgrade read it (docs/node.md)`;
  const validators = o.validators.map((v, i) =>
    [`  - name: ${yamlString(v.name ?? `validator-${i + 1}`)}`, `    nodeId: ${yamlString(v.nodeId)}`, `    network: ${v.network ?? 'mainnet'}`, api(v.api), `    # labels: { team: infra }   # route by them; rules may select them: validators: { team: infra }`].join('\n'),
  );
  const ruleFiles = o.validators.some((v) => v.api !== undefined) ? [...PROFILE_RULE_FILES, ...NODE_RULE_FILES] : PROFILE_RULE_FILES;
  const slack = o.slackWebhookUrlFile === undefined
    ? ['receivers: []                  # add one (docs/configuration.md#receivers): until then alerts are recorded, not sent', 'route:', '  receivers: []']
    : ['receivers:', '  - name: slack', '    type: slack', `    webhookUrlFile: ${yamlString(pathFrom(dir, resolve(o.slackWebhookUrlFile)))}`, 'route:', '  receivers: [slack]'];
  return [
    '# yaml-language-server: $schema=' + pathFrom(dir, resolve(rulesDir, '../docs/schema/config.schema.json')),
    '# Written by `avawatch init`. Reference: docs/configuration.md',
    '# Your validators: the rules below watch each one (status, end, health, delegations, block',
    '# production), each on its own network. Watching one more is one more entry here.',
    'validators:',
    ...validators,
    'api:',
    '  apiKey: ${AVAWATCH_API_KEY:-}        # optional: only raises the rate limits',
    'state:',
    `  path: ${statePathFor(o.file)}   # relative to the working directory; this config's own (another config never shares it)`,
    'server:',
    '  listen: 127.0.0.1:9464               # the status page, /metrics, /healthz, /readyz',
    ...slack,
    ...GROUPING,
    'ruleFiles:',
    ...ruleFiles.map((f) => `  - ${ruleFile(f)}`),
    '',
  ].join('\n');
}

/**
 * One happening, one message per receiver: what the rules say about one validator in one poll
 * (a validation ending: its status, end and health) goes out together, a critical or a
 * validator's first news at once (store/outbox.ts), later news within groupInterval.
 */
export const GROUPING = [
  '  groupBy: [rule]',
  '  routes:',
  "    # One happening, one message: a critical, or a validator's first news, leaves within the poll + 1 s with",
  "    # the poll's other alerts; later news joins within groupInterval. Routes of your own go before this one.",
  "    - matchRe: { validator: '.+' }",
  '      groupBy: [validator]',
  '      groupWait: 1m',
  '      groupInterval: 5m',
];

/**
 * The state file of a config init writes: named after the config (config/mine.yaml →
 * data/mine.db, conf/avawatch.yaml → data/conf-avawatch.db), so it never shares the shipped
 * config's data/avawatch.db, nor another config's, by accident.
 */
export function statePathFor(file: string): string {
  const rel = relative(process.cwd(), resolve(file));
  const inside = !rel.startsWith('..') && !isAbsolute(rel);
  const parts = (inside ? rel : resolve(file)).split(/[\\/]/).filter(Boolean);
  const named = inside ? parts : parts.slice(-2);
  if (named[0] === 'config' && named.length > 1) named.shift();
  const stem = named.join('-').replace(/\.ya?ml$/i, '').replace(/[^A-Za-z0-9_.-]/g, '_');
  return `data/${stem || 'avawatch'}.db`;
}

/** Relative to the config's directory when that stays short, else absolute. */
function pathFrom(dir: string, target: string): string {
  const rel = relative(dir, target);
  return isAbsolute(rel) || rel.split(/[\\/]/).filter((p) => p === '..').length > 2 ? target : rel;
}

/** A scalar YAML reads back as the same string (JSON strings are YAML). */
function yamlString(text: string): string {
  return /^[A-Za-z0-9_./-][A-Za-z0-9_./:-]*$/.test(text) && !/^(true|false|null|yes|no|on|off|~)$/i.test(text) ? text : JSON.stringify(text);
}

/** The command: writes, then loads the result as `check` would; a config that does not load is not left behind. */
export function initCommand(o: Omit<InitOptions, 'validators'> & { args: readonly InitArg[] }): number {
  const { args, ...rest } = o;
  let validators: InitValidator[] = [];
  try {
    validators = initValidators(args);
    writeInitConfig({ ...rest, validators });
  } catch (err) {
    if (!(err instanceof InitError)) throw err;
    console.error(`avawatch: ${err.message}`);
    return 1;
  }
  try {
    const loaded = loadConfig(o.file, process.env);
    const fuji = validators.filter((v) => v.network === 'fuji').length;
    const networks = fuji === 0 ? '' : fuji === validators.length ? ' on fuji' : ` (${validators.length - fuji} mainnet, ${fuji} fuji)`;
    console.log(`wrote ${o.file}: ${validators.length} validator(s)${networks}, ${loaded.rules.length} rules, state in ${loaded.config.state.path}`);
    console.log(`next: avawatch check -c ${o.file}   then   avawatch run -c ${o.file}`);
    return 0;
  } catch (err) {
    rmSync(o.file, { force: true });
    if (!(err instanceof ConfigError)) throw err;
    // The file is gone: name the argument, not a line in it.
    for (const p of err.problems) {
      const i = /^validators\[(\d+)\]/.exec(p.path)?.[1];
      console.error(i === undefined ? `${p.path}: ${p.message}` : `--node ${validators[Number(i)]?.nodeId ?? ''}: ${p.message}`);
    }
    console.error(`avawatch: ${o.file} not written`);
    return 1;
  }
}
