import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Ajv, type ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SCHEMA_NAMES, schemaText, type SchemaName } from '../../src/commands/schema.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist/cli.js');

const SHIPPED: Record<SchemaName, string[]> = {
  config: ['config/avawatch.yaml', 'config/demo/avawatch.yaml'],
  rules: ['config/demo/rules.yaml', ...readdirSync(join(ROOT, 'rules')).filter((f) => f.endsWith('.yaml')).map((f) => `rules/${f}`)],
};

const ajv = new Ajv({ allErrors: true, allowUnionTypes: true });
const validators = Object.fromEntries(SCHEMA_NAMES.map((n) => [n, ajv.compile(JSON.parse(schemaText(n)) as object)])) as Record<SchemaName, ValidateFunction>;

function errors(name: SchemaName, doc: unknown): string[] {
  const validate = validators[name];
  return validate(doc) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}

function yamlDoc(text: string): unknown {
  return parse(text) as unknown;
}

const rule = (extra: Record<string, unknown> = {}) => ({
  rules: [{ name: 'v', kind: 'validator-status', every: '30s', severity: 'critical', network: 'mainnet', nodeIds: ['NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg'], ...extra }],
});

describe('JSON Schema of the config and rule files', () => {
  it.each(SCHEMA_NAMES)('docs/schema/%s.schema.json is what the generator produces now', (name) => {
    const committed = readFileSync(join(ROOT, `docs/schema/${name}.schema.json`), 'utf8');
    expect(committed === schemaText(name), `docs/schema/${name}.schema.json is stale: run \`npm run build && node dist/cli.js schema --out docs/schema\``).toBe(true);
  });

  for (const name of SCHEMA_NAMES) {
    it.each(SHIPPED[name])(`shipped %s validates against the ${name} schema and names it in its modeline`, (file) => {
      const text = readFileSync(join(ROOT, file), 'utf8');
      expect(errors(name, yamlDoc(text))).toEqual([]);
      const modeline = /^# yaml-language-server: \$schema=(\S+)\n/.exec(text);
      expect(modeline, 'first line: # yaml-language-server: $schema=…').not.toBeNull();
      expect(resolve(dirname(join(ROOT, file)), modeline![1]!)).toBe(join(ROOT, `docs/schema/${name}.schema.json`));
    });
  }

  it('accepts ${VAR} wherever a string is written, also in patterned and enum fields', () => {
    expect(errors('rules', rule({ name: '${RULE_NAME}', severity: '${SEVERITY:-warning}', network: '${NET}', every: '${EVERY:-1m}' }))).toEqual([]);
    expect(errors('config', yamlDoc('server: { listen: "${LISTEN}" }\nlog: { level: "${LOG_LEVEL:-info}" }'))).toEqual([]);
    expect(errors('config', yamlDoc('receivers:\n  - { name: m, type: email, smtp: { host: h, port: "${PORT}" }, from: a@b.c, to: x@y.z }'))).toEqual([]);
  });

  it('rejects unknown keys, unknown kinds and receiver types, bad enum values and bad durations', () => {
    expect(errors('config', { apii: {} })).toContainEqual(expect.stringContaining('must NOT have additional properties'));
    expect(errors('config', { api: { timeout: '5 minutes' } })).toContainEqual(expect.stringContaining('/api/timeout must match pattern'));
    expect(errors('config', { log: { level: 'verbose' } })).toContainEqual(expect.stringContaining('/log/level must be equal to one of the allowed values'));
    expect(errors('config', { receivers: [{ name: 'x', type: 'pager' }] })).not.toEqual([]);
    expect(errors('rules', rule({ nodeId: 'NodeID-x' }))).toContainEqual(expect.stringContaining('must NOT have additional properties'));
    expect(errors('rules', rule({ kind: 'validator' }))).not.toEqual([]);
    expect(errors('rules', rule({ severity: 'urgent' }))).toContainEqual(expect.stringContaining('/rules/0/severity must be equal to one of the allowed values'));
    expect(errors('rules', rule({ every: '5 minutes' }))).toContainEqual(expect.stringContaining('/rules/0/every must match pattern'));
    expect(errors('rules', { rules: [{ ...rule().rules[0], severity: undefined }] })).toContainEqual(expect.stringContaining("must have required property 'severity'"));
    expect(errors('rules', { rule: [] })).not.toEqual([]);
  });
});

describe('avawatch schema', () => {
  it('prints each schema as JSON on stdout', async () => {
    for (const name of SCHEMA_NAMES) {
      const { stdout } = await run(process.execPath, [CLI, 'schema', name]);
      const json = JSON.parse(stdout) as { $schema: string; title: string };
      expect(json.$schema).toBe('http://json-schema.org/draft-07/schema#');
      expect(stdout).toBe(schemaText(name));
    }
  });

  it('writes both files with --out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avawatch-schema-'));
    try {
      await run(process.execPath, [CLI, 'schema', '--out', join(dir, 'out')]);
      for (const name of SCHEMA_NAMES) expect(readFileSync(join(dir, 'out', `${name}.schema.json`), 'utf8')).toBe(schemaText(name));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says what went wrong on stderr and exits 1', async () => {
    for (const args of [['schema'], ['schema', 'alerts']]) {
      const failed = await run(process.execPath, [CLI, ...args]).then(
        () => undefined,
        (err: unknown) => err as { code: number; stdout: string; stderr: string },
      );
      expect(failed?.code).toBe(1);
      expect(failed?.stdout).toBe('');
      expect(failed?.stderr).toMatch(/^avawatch: (say which schema|unknown schema "alerts")/);
    }
  });
});
