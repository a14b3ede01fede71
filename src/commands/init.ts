import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../base/version.js';
import { ConfigError, loadConfig } from '../config/load.js';

// `avawatch init`: a working config for one's own validators, watched by the shipped profile.

/** The shipped rule files that watch every inventory validator (`validators: all`). */
export const PROFILE_RULE_FILES = ['validators.yaml', 'validation-end.yaml', 'validator-health.yaml', 'delegation-end.yaml', 'block-production.yaml'] as const;

/** The shipped rule files that read the validators' own APIs (`api:`): added with --api, as the shipped config loads them. */
export const NODE_RULE_FILES = ['node-health.yaml', 'node-metrics.yaml'] as const;

export interface InitOptions {
  /** Where to write; never overwritten. */
  file: string;
  nodes: readonly string[];
  /** One per node, in order; default `validator-1`, `validator-2`, … */
  names?: readonly string[];
  network: 'mainnet' | 'fuji';
  /** Each node's own API (http://127.0.0.1:9650), one per node in order: node-health reads it. */
  apis?: readonly string[];
  /** A file holding the Slack webhook URL (the URL itself never lands in the config). */
  slackWebhookUrlFile?: string;
  /** The package's rules/ directory (tests point elsewhere). */
  rulesDir?: string;
}

export class InitError extends Error {
  override readonly name = 'InitError';
}

/** Writes the config; returns its text. Throws InitError for a file that exists or bad arguments. */
export function writeInitConfig(o: InitOptions): string {
  const file = resolve(o.file);
  if (existsSync(file)) throw new InitError(`${o.file} exists: init never overwrites a config; add your validators to its validators: list, or pass -c with a new file`);
  if (o.nodes.length === 0) throw new InitError('name at least one validator: --node NodeID-…');
  if (o.names && o.names.length > o.nodes.length) throw new InitError(`${o.names.length} --name for ${o.nodes.length} --node: give one name per node, in the same order`);
  if (o.apis && o.apis.length > o.nodes.length) throw new InitError(`${o.apis.length} --api for ${o.nodes.length} --node: give one API URL per node, in the same order`);
  for (const api of o.apis ?? []) if (!/^https?:\/\/[^\s/]+/.test(api)) throw new InitError(`--api ${api}: expected the node's API URL, such as http://127.0.0.1:9650`);
  const text = initConfigText({ ...o, file });
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text, { flag: 'wx' });
  return text;
}

export function initConfigText(o: InitOptions): string {
  const dir = dirname(resolve(o.file));
  const rulesDir = o.rulesDir ?? join(PACKAGE_ROOT, 'rules');
  const ruleFile = (name: string) => yamlString(pathFrom(dir, resolve(rulesDir, name)));
  const api = (i: number) => {
    const url = o.apis?.[i];
    return url === undefined ? `    # api: http://127.0.0.1:9650   # its own AvalancheGo API: add it, rules/node-health.yaml and rules/node-metrics.yaml to watch the node from inside (docs/node.md)` : `    api: ${yamlString(url)}   # node-health and node-metrics read it (docs/node.md)`;
  };
  const validators = o.nodes.map((nodeId, i) =>
    [`  - name: ${yamlString(o.names?.[i] ?? `validator-${i + 1}`)}`, `    nodeId: ${yamlString(nodeId)}`, `    network: ${o.network}`, api(i), `    # labels: { team: infra }   # route by them; rules may select them: validators: { team: infra }`].join('\n'),
  );
  const ruleFiles = (o.apis?.length ?? 0) > 0 ? [...PROFILE_RULE_FILES, ...NODE_RULE_FILES] : PROFILE_RULE_FILES;
  const slack = o.slackWebhookUrlFile === undefined
    ? ['receivers: []                  # add one (docs/configuration.md#receivers): until then alerts are recorded, not sent', 'route:', '  receivers: []']
    : ['receivers:', '  - name: slack', '    type: slack', `    webhookUrlFile: ${yamlString(pathFrom(dir, resolve(o.slackWebhookUrlFile)))}`, 'route:', '  receivers: [slack]'];
  return [
    '# yaml-language-server: $schema=' + pathFrom(dir, resolve(rulesDir, '../docs/schema/config.schema.json')),
    '# Written by `avawatch init`. Reference: docs/configuration.md',
    '# Your validators: the rules below watch each one (status, end, health, delegations, block',
    '# production). Watching one more is one more entry here.',
    'validators:',
    ...validators,
    'api:',
    '  apiKey: ${AVAWATCH_API_KEY:-}        # optional: only raises the rate limits',
    'state:',
    '  path: data/avawatch.db               # relative to the working directory',
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
export function initCommand(o: InitOptions): number {
  try {
    writeInitConfig(o);
  } catch (err) {
    if (!(err instanceof InitError)) throw err;
    console.error(`avawatch: ${err.message}`);
    return 1;
  }
  try {
    const loaded = loadConfig(o.file, process.env);
    console.log(`wrote ${o.file}: ${o.nodes.length} validator(s), ${loaded.rules.length} rules`);
    console.log(`next: avawatch check -c ${o.file}   then   avawatch run -c ${o.file}`);
    return 0;
  } catch (err) {
    rmSync(o.file, { force: true });
    if (!(err instanceof ConfigError)) throw err;
    // The file is gone: name the argument, not a line in it.
    for (const p of err.problems) {
      const i = /^validators\[(\d+)\]/.exec(p.path)?.[1];
      console.error(i === undefined ? `${p.path}: ${p.message}` : `--node ${o.nodes[Number(i)]}: ${p.message}`);
    }
    console.error(`avawatch: ${o.file} not written`);
    return 1;
  }
}
