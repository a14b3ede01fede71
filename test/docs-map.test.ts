import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ruleSchema } from '../src/config/schema.js';
import { ruleKinds } from '../src/rules/registry.js';
import { CONTRACTS } from './contract/sdk-operations.js';

// docs/rules.md opens with the map of the interface: every endpoint the simulator serves
// (the SDK's operations) is in it with what watches it, and its example rules load.
const docs = readFileSync('docs/rules.md', 'utf8');
const map = docs.slice(docs.indexOf('## The interface, endpoint by endpoint'), docs.indexOf('## How rules work'));

describe('the endpoint map of docs/rules.md', () => {
  it('names every endpoint of the service, each with a kind that watches it', () => {
    const rows = map.split('\n').filter((l) => l.startsWith('| `'));
    const missing = CONTRACTS.filter((c) => !rows.some((r) => r.includes(`${c.method} ${c.path}`)) && !rows.some((r) => r.includes(c.path)));
    expect(missing.map((c) => `${c.method} ${c.path}`)).toEqual([]);
    for (const row of rows) expect(Object.keys(ruleKinds).some((k) => row.includes(`[\`${k}\`]`)), row).toBe(true);
  });

  it('its example rules load as written, and every rule it names exists', () => {
    const blocks = [...map.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
    expect(blocks.length).toBeGreaterThan(0);
    const rules = blocks.flatMap((b) => (parse(b) as { rules: unknown[] }).rules);
    const problems = rules.flatMap((r) => {
      const result = ruleSchema.safeParse(r);
      return result.success ? [] : [`${(r as { name: string }).name}: ${result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`];
    });
    expect(problems).toEqual([]);
    const shipped = readFileSync('rules/endpoint.yaml', 'utf8');
    const named = [...map.matchAll(/`([a-z0-9-]+)` (?:below|in `rules\/endpoint\.yaml`)|`([a-z0-9-]+)`, `([a-z0-9-]+)` in `rules\/endpoint\.yaml`/g)].flatMap((m) => m.slice(1).filter(Boolean));
    for (const name of named) expect(shipped.includes(`name: ${name}\n`) || rules.some((r) => (r as { name: string }).name === name), name).toBe(true);
  });
});
