import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, configPath, loadConfig, notLoadedExamples } from './load.js';
import { formatProblem } from '../base/source.js';
import { ruleKinds } from '../rules/registry.js';
import { expectedProblems } from '../../test/helpers/fixtures.js';

const FIXTURES = 'test/fixtures/config';
const tmp = mkdtempSync(join(tmpdir(), 'avawatch-config-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Each fixture states the exact problems it must produce (test/helpers/fixtures.ts). */
const expected = expectedProblems;

function problemsOf(file: string): string[] {
  try {
    loadConfig(file, {});
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map(formatProblem);
    throw err;
  }
  return [];
}

describe('bad rule files: one fixture per message', () => {
  const dir = `${FIXTURES}/rules`;
  for (const name of readdirSync(dir)) {
    it(name, () => {
      const file = `${dir}/${name}`;
      const config = join(tmp, `${name}.config.yaml`);
      writeFileSync(
        config,
        `receivers: [{name: ops, type: slack, webhookUrl: ""}]\nroute: {receivers: [ops]}\nruleFiles: [${resolve(file)}]\n`,
      );
      expect(problemsOf(config)).toEqual(expected(file));
    });
  }
});

describe('bad config files: one fixture per message', () => {
  const dir = `${FIXTURES}/main`;
  for (const name of readdirSync(dir)) {
    it(name, () => {
      const file = `${dir}/${name}`;
      expect(problemsOf(file)).toEqual(expected(file));
    });
  }
});

describe('loading the shipped config', () => {
  it('passes with no environment, watches no stranger: the profile waits for an inventory', () => {
    const loaded = loadConfig('config/avawatch.yaml', {});
    expect(loaded.rules.map((r) => r.name)).toEqual(['c-chain-tx-drop']);
    expect(loaded.warnings).toEqual([
      'config/avawatch.yaml:35:5: receivers[0]: receiver "ops-slack" is disabled: webhookUrl is empty',
      'config/avawatch.yaml: the inventory lists no validator, so 26 rule(s) with "validators: all" watch nothing and are not loaded (my-validators, validation-ending, validator-health, delegations, block-production, network-baseline and 20 more): add yours under validators: (or run avawatch init --node NodeID-…)',
    ]);
  });

  it('with one validator in its inventory, the shipped profile watches it in every read-only kind', () => {
    const text = readFileSync('config/avawatch.yaml', 'utf8')
      .replace('validators: []', 'validators:\n  - { name: alpha, nodeId: NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg, api: "http://127.0.0.1:9650" }')
      .replaceAll('../rules/', `${resolve('rules')}/`);
    writeFileSync(join(tmp, 'avawatch.yaml'), text);
    const loaded = loadConfig(join(tmp, 'avawatch.yaml'), {});
    // Only read-only rules over entities that exist on mainnet; every other example is a
    // placeholder that check names, and none of them writes (export) or probes (aggregator).
    const kinds = new Set(loaded.rules.map((r) => r.kind));
    expect([...kinds].sort()).toEqual(['block-production', 'delegation-end', 'metric-threshold', 'network-baseline', 'node-health', 'node-metrics', 'node-upgrade', 'validation-end', 'validator-health', 'validator-status']);
    for (const rule of loaded.rules.filter((r) => r.kind !== 'metric-threshold' && r.kind !== 'network-baseline')) {
      // The node's own rules read its API; the others its NodeID.
      if (rule.kind.startsWith('node-')) expect(rule.spec['urls']).toEqual({ 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg': 'http://127.0.0.1:9650' });
      else expect(rule.spec['nodeIds']).toEqual(['NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg']);
    }
    const examples = notLoadedExamples(loaded).map((e) => e.file);
    const shipped = readdirSync('rules').filter((f) => f.endsWith('.yaml')).map((f) => `rules/${f}`);
    expect([...loaded.ruleFiles.map((f) => relative(process.cwd(), f)), ...examples].sort()).toEqual(shipped.sort());
    expect(examples).toContain('rules/export.yaml');
    // Every kind still has an example: loaded, or to copy.
    const all = new Set([...kinds, ...examples.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/^ {4}kind: ([\w-]+)$/gm)].map((m) => m[1]))]);
    expect([...all].sort()).toEqual(Object.keys(ruleKinds).sort());
  });

  it('a glob does not load an example with placeholders: it is listed as an example instead', () => {
    writeFileSync(join(tmp, 'avawatch.yaml'), `validators: [{ name: alpha, nodeId: NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg }]\nruleFiles: ["${resolve('rules')}/*.yaml"]\n`);
    const loaded = loadConfig(join(tmp, 'avawatch.yaml'), {});
    expect(loaded.rules.map((r) => r.name)).not.toContain('signature-aggregator');
    expect(loaded.rules.map((r) => r.name)).toContain('my-validators');
    expect(notLoadedExamples(loaded).map((e) => e.file)).toEqual(expect.arrayContaining(['rules/export.yaml', 'rules/signature-aggregator.yaml']));
    expect(loaded.warnings.filter((w) => w.includes('placeholder'))).toEqual([]);
  });

  it('a loaded example with placeholders is warned about, at its placeholder line', () => {
    writeFileSync(join(tmp, 'avawatch.yaml'), `ruleFiles: [${resolve('rules/icm-pending.yaml')}]\n`);
    const loaded = loadConfig(join(tmp, 'avawatch.yaml'), {});
    expect(loaded.warnings.filter((w) => w.includes('placeholder'))).toEqual([
      expect.stringMatching(/rules\/icm-pending\.yaml:4:14: an example with placeholders \(the address: your ICM sender or receiver contract\): replace them with your own, then remove "placeholder:"$/),
    ]);
  });

  it('interpolates ${VAR} and ${VAR:-default}, and keeps the key a secret', () => {
    const loaded = loadConfig('config/avawatch.yaml', { AVAWATCH_API_KEY: 'k-123456', SLACK_WEBHOOK_URL: 'https://hooks.example/x' });
    expect(loaded.config.api.apiKey?.reveal()).toBe('k-123456');
    expect(JSON.stringify(loaded.config)).not.toContain('k-123456');
    expect(JSON.stringify(loaded.config)).not.toContain('hooks.example');
    expect(loaded.warnings.filter((w) => w.includes('disabled'))).toEqual([]);
  });

  it('reads secrets from files (webhookUrlFile, passFile, apiKeyFile), relative to the config', () => {
    writeFileSync(join(tmp, 'slack.url'), 'https://hooks.example/services/T0/B0/filesecret\n');
    writeFileSync(join(tmp, 'smtp.pass'), 'mail-pass-from-file\n');
    writeFileSync(join(tmp, 'api.key'), 'key-from-file');
    const config = join(tmp, 'files.yaml');
    writeFileSync(
      config,
      `api: {apiKeyFile: api.key}\nreceivers:\n  - {name: s, type: slack, webhookUrlFile: slack.url}\n  - {name: m, type: email, smtp: {host: localhost, auth: {user: u, passFile: ${join(tmp, 'smtp.pass')}}}, from: a@example.com, to: b@example.com}\n`,
    );
    const loaded = loadConfig(config, {});
    expect(loaded.config.api.apiKey?.reveal()).toBe('key-from-file');
    expect((loaded.config.receivers[0] as { webhookUrl?: { reveal(): string } }).webhookUrl?.reveal()).toBe('https://hooks.example/services/T0/B0/filesecret');
    expect(loaded.secrets.map((x) => x.reveal()).sort()).toEqual(['https://hooks.example/services/T0/B0/filesecret', 'key-from-file', 'mail-pass-from-file']);
    expect(JSON.stringify(loaded.config)).not.toContain('filesecret');
    expect(loaded.warnings).toEqual([`${config}: no rules loaded: nothing will be watched`]);
  });

  it("a node API's credentials (http://user:pass@host) and the heartbeat URLs are secrets too", () => {
    const config = join(tmp, 'node-secrets.yaml');
    writeFileSync(config, `validators: [{name: alpha, nodeId: NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg, api: "http://watch:n0de%2Fpass@10.0.0.5:9650"}]\nheartbeat: {url: "https://hc-ping.com/uuid-1"}\nruleFiles: ["${resolve('rules/node-health.yaml')}"]\n`);
    const loaded = loadConfig(config, {});
    expect(loaded.secrets.map((x) => x.reveal()).sort()).toEqual(['https://hc-ping.com/uuid-1', 'n0de/pass']);
  });

  it('names a secret file it cannot read, and refuses both forms at once', () => {
    const config = join(tmp, 'bad-files.yaml');
    writeFileSync(config, 'receivers:\n  - {name: s, type: slack, webhookUrlFile: nope.url}\n  - {name: t, type: slack, webhookUrl: "https://x.example/a", webhookUrlFile: nope.url}\n');
    expect(problemsOf(config)).toEqual([
      `${config}:2:44: receivers[0].webhookUrlFile: cannot read secret file nope.url (ENOENT)`,
      `${config}:3:79: receivers[1].webhookUrlFile: set webhookUrl or webhookUrlFile, not both`,
    ]);
  });

  it('reports a missing config file by name', () => {
    expect(problemsOf('nope/avawatch.yaml')).toEqual(['nope/avawatch.yaml:1:1: (top level): config file not found']);
  });

  it('picks the path from the flag, then AVAWATCH_CONFIG, then the default', () => {
    expect(configPath('a.yaml', { AVAWATCH_CONFIG: 'b.yaml' })).toBe('a.yaml');
    expect(configPath(undefined, { AVAWATCH_CONFIG: 'b.yaml' })).toBe('b.yaml');
    expect(configPath(undefined, {})).toBe('config/avawatch.yaml');
  });
});
