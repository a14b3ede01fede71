import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exists, pathsNamed, recipe } from '../../test/helpers/recipe.js';
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

  // The lists of kinds elsewhere are generated from the registry too, between their markers:
  // README.md's table of kinds (each kind's "What it tells you") and docs/metrics.md's gauges.
  it('README.md lists every kind with what it tells you, from its README', async () => {
    const rows = Object.keys(ruleKinds).map((kind) => {
      const summary = /^> \*\*What it tells you:\*\* (.+)$/m.exec(own(kind))?.[1];
      if (summary === undefined) throw new Error(`src/rules/${kind}/README.md: no "> **What it tells you:** …" line under its heading`);
      // The kinds' READMEs link from docs/ (they are joined into docs/rules.md).
      return `  | \`${kind}\` | ${summary.replace(/\]\((?![a-z]+:|#|\/)/g, '](docs/')} |`;
    });
    const table = ['  | kind | what it tells you |', '  |---|---|', ...rows].join('\n');
    await expect(withGenerated('README.md', "  <!-- Generated from each kind's README", '  <!-- End of the generated kinds. -->', table)).toMatchFileSnapshot('../../README.md');
  });

  it("docs/metrics.md lists every kind's gauges, from the registry", async () => {
    const rows = Object.entries(ruleKinds).flatMap(([kind, k]) =>
      k.gauges.map((g, i) => `| \`${g.name}\` | gauge | ${g.labelNames.map((l) => `\`${l}\``).join(', ')} | ${g.help.replace(/\.$/, '')}${i === 0 ? ` (\`${kind}\`)` : ''} |`),
    );
    const table = ['| metric | type | labels | meaning |', '|---|---|---|---|', ...rows].join('\n');
    await expect(withGenerated('docs/metrics.md', "<!-- Generated from each kind's gauges", '<!-- End of the generated gauges. -->', table)).toMatchFileSnapshot('../../docs/metrics.md');
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

// README.md's recipe for a new kind is whole: it names every place a kind has (those below,
// which this spec and demo.spec.ts, dashboard.spec.ts and docs-map.test.ts ask of each kind),
// every file it names exists, and every registered kind has each place.
describe("README.md's recipe for a new rule kind", () => {
  const text = recipe('A new rule kind');
  const docs = readFileSync('docs/rules.md', 'utf8');
  const map = docs.slice(docs.indexOf('## The interface, endpoint by endpoint'), docs.indexOf('## How rules work'));
  const schema = readFileSync('docs/schema/rules.schema.json', 'utf8');
  /** Each place of the recipe, and whether `kind` has it. */
  const PLACES: Record<string, (kind: string) => boolean> = {
    'src/rules/<kind>/': (kind) => exists(`src/rules/${kind}/`),
    'schema.ts': (kind) => exists(`src/rules/${kind}/schema.ts`),
    'index.ts': (kind) => exists(`src/rules/${kind}/index.ts`),
    'index.spec.ts': (kind) => exists(`src/rules/${kind}/index.spec.ts`),
    'README.md': (kind) => exists(`src/rules/${kind}/README.md`),
    'src/rules/registry.ts': (kind) => kind in ruleKinds,
    'src/rules/README.md': (kind) => map.includes(`[\`${kind}\`](#${kind})`),
    'docs/rules.md': (kind) => docs.includes(`## \`${kind}\``),
    'src/rules/<kind>/dashboard.json': (kind) => (ruleKinds as Record<string, { gauges: readonly unknown[] }>)[kind]?.gauges.length === 0 || exists(`src/rules/${kind}/dashboard.json`),
    'docs/schema/rules.schema.json': (kind) => new RegExp(`"const":\\s*"${kind}"`).test(schema),
    'src/rules/<kind>/demo.yaml': (kind) => exists(`src/rules/${kind}/demo.yaml`),
    'rules/': (kind) => readdirSync('rules').some((f) => f.endsWith('.yaml') && readFileSync(`rules/${f}`, 'utf8').includes(`kind: ${kind}\n`)),
    'rules/tests/': () => exists('rules/tests/'),
  };

  it('names each place a kind has', () => {
    expect(Object.keys(PLACES).filter((place) => !text.includes(`\`${place}\``))).toEqual([]);
  });

  it('every file and command it names exists', () => {
    const named = pathsNamed(text).flatMap((path) => (path.includes('<kind>') ? Object.keys(ruleKinds).map((kind) => path.replaceAll('<kind>', kind)) : [path]));
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((path) => !exists(path))).toEqual([]);
  });

  for (const kind of Object.keys(ruleKinds)) {
    it(`${kind}: has each place of the recipe`, () => {
      expect(Object.entries(PLACES).filter(([, has]) => !has(kind)).map(([place]) => place)).toEqual([]);
    });
  }
});

/** `file` as it is, with the lines between the line that opens with `begin` and the line `end` replaced by `generated`. */
function withGenerated(file: string, begin: string, end: string, generated: string): string {
  const lines = readFileSync(file, 'utf8').split('\n');
  const from = lines.findIndex((l) => l.startsWith(begin));
  const to = lines.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${file}: the generated part is marked by a line opening with "${begin}" and the line "${end}"`);
  return [...lines.slice(0, from + 1), generated, ...lines.slice(to)].join('\n');
}
