import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ruleKinds } from './registry.js';

const HEADER = '<!-- Joined from src/rules/README.md and each kind\'s src/rules/<kind>/README.md (edit those, then `npx vitest run src/rules/registry.spec.ts -u`). -->\n';

// One folder per kind, one registry line: this fails when a folder is not registered, or a
// registered kind lacks its example rule, its rule test or its documentation.
describe('rule kind registry', () => {
  const folders = readdirSync('src/rules', { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
  const examples = readdirSync('rules').filter((f) => f.endsWith('.yaml')).map((f) => readFileSync(`rules/${f}`, 'utf8'));
  const tests = readdirSync('rules/tests').map((f) => readFileSync(`rules/tests/${f}`, 'utf8'));
  const docs = readFileSync('docs/rules.md', 'utf8');
  const own = (kind: string) => readFileSync(`src/rules/${kind}/README.md`, 'utf8');

  // docs/rules.md is src/rules/README.md, then each kind's README.md in registry order.
  // After editing one: `npx vitest run src/rules/registry.spec.ts -u` writes docs/rules.md.
  it('docs/rules.md is the kinds\' own docs joined', async () => {
    const joined = [HEADER, readFileSync('src/rules/README.md', 'utf8'), ...Object.keys(ruleKinds).map(own)].join('\n');
    await expect(joined).toMatchFileSnapshot('../../docs/rules.md');
  });

  it('registers every rule folder under its folder name', () => {
    expect(Object.keys(ruleKinds).sort()).toEqual(folders.sort());
  });

  for (const kind of Object.keys(ruleKinds)) {
    it(`${kind}: has an example in rules/, a rule test and a docs/rules.md entry`, () => {
      const example = examples.find((e) => e.includes(`kind: ${kind}\n`));
      expect(example, `rules/*.yaml with kind: ${kind}`).toBeDefined();
      const name = /name: ([\w.:-]+)/.exec(example ?? '')?.[1];
      expect(tests.some((t) => t.includes(`rule: ${name}`)), `a rule test expecting an alert of ${name}`).toBe(true);
      expect(own(kind).startsWith(`## \`${kind}\`\n`), `src/rules/${kind}/README.md opens with its heading`).toBe(true);
      expect(docs).toContain(`## \`${kind}\``);
    });

    it(`${kind}: says whether it reads \`for\` itself`, () => {
      const k = ruleKinds[kind as keyof typeof ruleKinds] as { spec: { shape: object }; ownsFor?: boolean };
      expect(k.ownsFor === true, 'a kind whose keys include `for` reads it itself: set ownsFor').toBe('for' in k.spec.shape);
    });
  }
});
