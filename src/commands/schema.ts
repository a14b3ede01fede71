import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { formatDuration } from '../base/duration.js';
import { avaxAmount, durationMs, secretString, secretUrl } from '../base/fields.js';
import { configSchema, ruleFileSchema, ruleSchema } from '../config/schema.js';
import { channels } from '../channels/registry.js';
import { ruleKind } from '../rules/registry.js';

type Json = Record<string, unknown>;
export type SchemaName = 'config' | 'rules';
export const SCHEMA_NAMES: readonly SchemaName[] = ['config', 'rules'];

const DURATION = '^(?:\\d+(?:ms|s|m|h|d|w))+$';
// What the loader substitutes in every string scalar before validation (src/base/interpolate.ts).
const INTERPOLATION = '\\$\\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\\}';

const SECTIONS: Record<string, string> = {
  api: 'The Data API and Metrics API: URLs, API key, timeouts, retries, paging, compute-unit budget, shared requests.',
  state: 'The SQLite file that keeps alert state and the outbox.',
  server: 'The HTTP listener of the status page (/), /metrics, /healthz, /readyz and /api/v1/alerts, and the credentials it asks for.',
  log: 'Logging.',
  health: 'When a failing rule raises rule-failing and makes /readyz fail.',
  route: 'The routing tree: default receivers, grouping, repeat interval, child routes.',
  receivers: `Where notifications go: ${Object.keys(channels).join(', ')} receivers.`,
  delivery: 'Retries of notifications that could not be delivered.',
  timeIntervals: 'Named recurring windows in which routes that name them mute notifications.',
  ruleFiles: 'Globs of rule files, relative to this file.',
  validators: 'The inventory: your validators (NodeID, name, network, labels), declared once; rules select them with `validators: all` or by label.',
  validatorsFile: 'A YAML file with a top-level `validators:` list (the inventory), relative to this file; instead of `validators`.',
};

type OverrideContext = Parameters<NonNullable<z.core.ToJSONSchemaParams['override']>>[0];

/** Describes the fields whose zod type only says "string" on the input side. */
function override({ zodSchema, jsonSchema }: OverrideContext): void {
  const schema = zodSchema as unknown;
  if (schema === durationMs) {
    jsonSchema.pattern = DURATION;
    jsonSchema.description = 'A duration: one or more <number><unit> (ms, s, m, h, d, w), e.g. 30s, 5m, 1h30m, 14d.';
  } else if (schema === avaxAmount) {
    jsonSchema.description = 'An amount of AVAX, e.g. 0.5 or "1.25" (exact to the nAVAX).';
  } else if (schema === secretString || schema === secretUrl) {
    jsonSchema.description = 'A credential: write ${VAR} to read it from the environment; empty means unset.';
  }
  // zod drops defaults of transformed types on the input side; a duration's is worth showing as written.
  const def = zodSchema._zod.def;
  if (def.type !== 'default') return;
  const inner = def.innerType as unknown;
  const value = def.defaultValue as unknown;
  if (inner === durationMs && typeof value === 'number') jsonSchema.default = formatDuration(value);
  const element = (def.innerType._zod.def as { element?: unknown }).element;
  if (element === durationMs && Array.isArray(value)) jsonSchema.default = value.map((ms: number) => formatDuration(ms));
}

/**
 * `${VAR}` is substituted into string scalars before validation, so a value that refers to a
 * variable must pass a pattern or an enum here. Keys are never interpolated: propertyNames stay strict,
 * and so do the `kind` and `type` discriminators (const), which pick the variant.
 */
function allowInterpolation(node: unknown): void {
  if (Array.isArray(node)) {
    node.forEach(allowInterpolation);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const s = node as Json;
  for (const [key, value] of Object.entries(s)) if (key !== 'propertyNames' && key !== 'default') allowInterpolation(value);
  if (s['type'] === 'string' && typeof s['pattern'] === 'string') {
    s['pattern'] = `(?:${s['pattern']})|${INTERPOLATION}`;
  } else if (Array.isArray(s['enum']) && s['enum'].every((v) => typeof v === 'string')) {
    s['anyOf'] = [{ type: 'string', enum: s['enum'] }, { type: 'string', pattern: INTERPOLATION }];
    delete s['type'];
    delete s['enum'];
  }
}

function toJson(schema: z.ZodType): Json {
  const json = z.toJSONSchema(schema, { target: 'draft-07', io: 'input', unrepresentable: 'any', override }) as Json;
  allowInterpolation(json);
  return json;
}

function variants(union: unknown): Json[] {
  return ((union as Json | undefined)?.['oneOf'] as Json[] | undefined) ?? [];
}

function constOf(variant: Json, key: string): unknown {
  return ((variant['properties'] as Record<string, Json>)[key] ?? {})['const'];
}

export function configJsonSchema(): Json {
  const json = toJson(configSchema);
  json['title'] = 'avawatch config';
  json['description'] = 'The avawatch daemon configuration (docs/configuration.md). ${VAR} and ${VAR:-default} read the environment.';
  const properties = json['properties'] as Record<string, Json>;
  for (const [key, description] of Object.entries(SECTIONS)) if (properties[key]) properties[key]['description'] ??= description;
  for (const v of variants((properties['receivers'] as Json | undefined)?.['items'])) v['title'] = `${String(constOf(v, 'type'))} receiver`;
  return json;
}

export function rulesJsonSchema(): Json {
  const json = toJson(ruleFileSchema.extend({ rules: z.array(ruleSchema) }));
  json['title'] = 'avawatch rule file';
  json['description'] = 'Rules: the common keys (name, every or schedule, severity, …) and the keys of the rule kind (docs/rules.md).';
  const rules = (json['properties'] as Record<string, Json>)['rules'];
  for (const v of variants(rules?.['items'])) {
    v['title'] = `${String(constOf(v, 'kind'))} rule`;
    selectable(v);
  }
  return json;
}

/**
 * A rule that selects inventory validators gets the keys its kind fills (nodeIds) and its
 * network from the inventory (the loader does it before the kind's parse): either will do.
 */
function selectable(variant: Json): void {
  const properties = variant['properties'] as Record<string, Json>;
  if (!properties['validators']) return;
  const fills: readonly string[] = ruleKind(String(constOf(variant, 'kind'))).selects ?? [];
  const required = (variant['required'] as string[] | undefined) ?? [];
  const filled = required.filter((k) => fills.includes(k));
  variant['required'] = required.filter((k) => k !== 'network' && !fills.includes(k));
  if (filled.length > 0) variant['anyOf'] = [{ required: ['validators'] }, { required: filled }];
}

export function schemaText(name: SchemaName): string {
  return `${JSON.stringify(name === 'config' ? configJsonSchema() : rulesJsonSchema(), null, 2)}\n`;
}

/** `avawatch schema config|rules` prints one; `--out DIR` writes DIR/<name>.schema.json (both without a name). */
export function schemaCommand(which: string | undefined, out: string | undefined): void {
  if (which !== undefined && !(SCHEMA_NAMES as readonly string[]).includes(which)) {
    throw new Error(`unknown schema "${which}": use config or rules`);
  }
  if (out === undefined) {
    if (which === undefined) throw new Error('say which schema: avawatch schema config, avawatch schema rules, or avawatch schema --out DIR');
    process.stdout.write(schemaText(which as SchemaName));
    return;
  }
  mkdirSync(out, { recursive: true });
  for (const name of which === undefined ? SCHEMA_NAMES : [which as SchemaName]) {
    const file = join(out, `${name}.schema.json`);
    writeFileSync(file, schemaText(name));
    console.log(`wrote ${file}`);
  }
}
