import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ruleKinds } from '../src/rules/registry.js';

// The import graph of src/ (type imports too): one way down through the layers.
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

const files = sources('src');
const graph = new Map(
  files.map((file) => {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/^(?:import|export)\b[^;]*?from '(\.[^']+)'/gms)].map((m) => relative('.', resolve(dirname(file), (m[1] as string).replace(/\.js$/, '.ts'))));
    return [file, targets] as const;
  }),
);

// The folders of src/, bottom up. A folder may import only from the layers below its own;
// those of one layer do not import each other. The files at src/'s root form the top (cli).
const LAYERS: readonly (readonly string[])[] = [
  ['base'], // types, durations, config field helpers, secrets, log, retry, timers, amounts
  ['api', 'store'], // the service's and the nodes' clients; SQLite
  ['metrics'], // the Prometheus registry
  ['rules'], // the kinds
  ['inventory'], // validators declared once
  ['channels'], // Slack, email, … : one message, one post
  ['config'], // the whole config: rules, inventory, receivers, routes
  ['alerts'], // routing, silences, the lifecycle
  ['incidents'], // one verdict for many alerts: network-wide, a fleet group, or the validator (pure)
  ['engine', 'delivery', 'history', 'heartbeat'], // evaluate → commit; the outbox's sender; samples; the dead man's switch
  ['status'], // the status page
  ['server'], // HTTP: /metrics, /healthz, the status page
  ['sim', 'demo'], // the simulator; the demo's printers
  ['app'], // the daemon, composed
  ['ruletest'], // `avawatch test`
  ['commands'],
  ['.'], // cli.ts
];

function folderOf(file: string): string {
  const parts = file.split('/');
  return parts.length > 2 ? (parts[1] as string) : '.';
}

function layerOf(folder: string): number | undefined {
  const i = LAYERS.findIndex((layer) => layer.includes(folder));
  return i < 0 ? undefined : i;
}

function cycles(): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const walk = (file: string, path: string[]): void => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      found.push([...path.slice(path.indexOf(file)), file]);
      return;
    }
    state.set(file, 'open');
    for (const next of graph.get(file) ?? []) walk(next, [...path, file]);
    state.set(file, 'done');
  };
  for (const file of files) walk(file, []);
  return found;
}

describe('the import graph of src/', () => {
  it('has no circle', () => {
    expect(cycles().map((c) => c.join(' → '))).toEqual([]);
  });

  it('no rule kind imports another kind\'s folder or the engine', () => {
    const wrong = [...graph].flatMap(([file, targets]) => {
      const kind = /^src\/rules\/([^/]+)\//.exec(file)?.[1];
      if (!kind) return [];
      return targets.filter((t) => t.startsWith('src/engine/') || (/^src\/rules\/[^/]+\//.test(t) && !t.startsWith(`src/rules/${kind}/`))).map((t) => `${file} → ${t}`);
    });
    expect(wrong).toEqual([]);
  });

  it('the shared types and the retry helper are leaves', () => {
    expect(graph.get('src/base/types.ts')).toEqual([]);
    expect(graph.get('src/base/retry.ts')).toEqual([]);
  });

  it('folders are layers: a folder imports only folders of a lower layer', () => {
    const folders = new Set(files.map(folderOf));
    expect([...folders].filter((f) => layerOf(f) === undefined), 'a folder not in LAYERS: give it its place').toEqual([]);
    const upward = [...graph].flatMap(([file, targets]) =>
      targets.filter((t) => folderOf(t) !== folderOf(file) && !((layerOf(folderOf(t)) ?? 0) < (layerOf(folderOf(file)) ?? 0))).map((t) => `${file} → ${t}`),
    );
    expect(upward).toEqual([]);
  });

  it('the API layer imports neither the rules, the engine, the config loader nor the channels', () => {
    const wrong = [...graph].flatMap(([file, targets]) =>
      file.startsWith('src/api/') ? targets.filter((t) => /^src\/(rules|engine|channels|delivery|config)\//.test(t)).map((t) => `${file} → ${t}`) : [],
    );
    expect(wrong).toEqual([]);
  });

  it('only src/store holds SQL; the rest types against StateStore, and only the App and the commands open a SqliteStore', () => {
    const outside = files.filter((f) => !f.startsWith('src/store/'));
    const sql = outside.filter((f) => /from '(better-sqlite3|node:sqlite)'|\.prepare\(|\.pragma\(/.test(readFileSync(f, 'utf8')));
    expect(sql, 'SQL or a database handle outside src/store: give the store a method').toEqual([]);
    const opens = outside.filter((f) => /\bSqliteStore\b/.test(readFileSync(f, 'utf8')) && !/^src\/(app|commands)\//.test(f));
    expect(opens, 'type against StateStore; the App and the commands choose the implementation').toEqual([]);
  });
});

// ---- A kind is its folder and one registry line. Its own files outside the folder are its
// example in rules/ and its rule test in rules/tests/ (registry.spec.ts asks for both); the
// lists of every kind (docs/rules.md, README.md's table, docs/metrics.md's gauges, the JSON
// schema, the Grafana dashboard) are generated from the registry. What else names a kind is
// listed below, with why.

const KINDS = Object.keys(ruleKinds);
const EXPRESSIONS = "the endpoint kind's expression process: the app keeps one per rule across reloads, the engine hands it to observe (ObserveContext.expressions)";
const PROFILE = "the shipped profile: the example rule files `avawatch init` writes (a choice among the kinds' examples, not a list of kinds)";

/** Where src/ names a kind outside its folder and the registry (`file → kind`), and why. */
const NAMED_OUTSIDE: Readonly<Record<string, string>> = {
  'src/app/parts.ts → endpoint': EXPRESSIONS,
  'src/engine/engine.ts → endpoint': EXPRESSIONS,
  'src/rules/types.ts → endpoint': EXPRESSIONS,
  'src/commands/init.ts → validator-status': PROFILE,
  'src/commands/init.ts → validation-end': PROFILE,
  'src/commands/init.ts → validator-health': PROFILE,
  'src/commands/init.ts → delegation-end': PROFILE,
  'src/commands/init.ts → block-production': PROFILE,
  'src/commands/init.ts → node-health': PROFILE,
  'src/commands/init.ts → node-metrics': PROFILE,
  'src/commands/init.ts → node-upgrade': PROFILE,
  'src/commands/init.ts → network-baseline': PROFILE,
};

/** Hand-written files that name every kind, and why they may. */
const LISTS_EVERY_KIND: Readonly<Record<string, string>> = {
  'src/rules/registry.ts': 'the registry',
  'src/rules/README.md': "the map of the interface, endpoint by endpoint, and the kind that watches each (docs-map.test.ts holds it to the SDK's operations)",
  'docs/design/entity-spread.md': 'a plan dated by its commit: which kinds it spreads by entity and which stay whole, as they were then',
};

/** The kinds of each example rule file of rules/, by file name. */
const exampleKinds = new Map(
  readdirSync('rules')
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => [f, [...readFileSync(join('rules', f), 'utf8').matchAll(/^\s*(?:- )?kind: ([\w-]+)$/gm)].map((m) => m[1] as string)] as const),
);

/** A kind's name or a .yaml file name, quoted: what a string literal naming a kind must contain. */
const QUOTED = new RegExp(`['"\`](${KINDS.join('|')})['"\`]|\\.yaml['"\`]`);

/** Whether a string literal stands for a kind: compared with a `kind`, a `kind:` value, or looked up in the registry. */
function kindPosition(node: ts.Node): boolean {
  const parent = node.parent;
  const isKind = (e: ts.Node) => /(^|\.)kind$/.test(e.getText());
  if (ts.isBinaryExpression(parent)) return isKind(parent.left === node ? parent.right : parent.left);
  if (ts.isCaseClause(parent)) return isKind(parent.parent.parent.expression);
  if (ts.isPropertyAssignment(parent)) return parent.name.getText() === 'kind';
  if (ts.isCallExpression(parent)) return /(^|\.)ruleKind$/.test(parent.expression.getText());
  if (ts.isElementAccessExpression(parent)) return /(^|\.)ruleKinds$/.test(parent.expression.getText());
  return false;
}

/** The kinds a file of src/ names in its code (comments and other text aside): `file → kind`. */
function kindsNamedIn(file: string): string[] {
  const named = new Set<string>();
  for (const target of graph.get(file) ?? []) {
    const kind = /^src\/rules\/([^/]+)\//.exec(target)?.[1];
    if (kind !== undefined) named.add(kind);
  }
  const text = readFileSync(file, 'utf8');
  // Parsed only when a kind or a rule file is quoted in it at all (most files: neither).
  if (QUOTED.test(text)) {
    const visit = (node: ts.Node): void => {
      if (ts.isStringLiteralLike(node)) {
        if (KINDS.includes(node.text) && kindPosition(node)) named.add(node.text);
        // A rule file of rules/ by name: the kinds in it.
        for (const kind of /\.yaml$/.test(node.text) ? (exampleKinds.get(basename(node.text)) ?? []) : []) named.add(kind);
      }
      ts.forEachChild(node, visit);
    };
    visit(ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true));
  }
  const own = /^src\/rules\/([^/]+)\//.exec(file)?.[1];
  return [...named].filter((k) => k !== own).map((k) => `${file} → ${k}`);
}

/** Text files of the repository, outside what is not source (dependencies, builds, the state). */
function repositoryFiles(dir = '.'): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = dir === '.' ? name : join(dir, name);
    if (['node_modules', 'dist', 'dist-bench', 'data', 'coverage', 'test-artifacts'].includes(path) || name.startsWith('.')) return [];
    if (statSync(path).isDirectory()) return repositoryFiles(path);
    return /\.(ts|js|mjs|md|ya?ml|json|sh)$/.test(name) || name === 'Dockerfile' ? [path] : [];
  });
}

describe('a kind is its folder and one registry line', () => {
  it('src/ names a kind outside its folder and the registry only where NAMED_OUTSIDE says why', () => {
    const named = files.filter((f) => f !== 'src/rules/registry.ts').flatMap(kindsNamedIn);
    expect(named.sort(), 'a new place that names a kind: derive it from the registry, or say why in NAMED_OUTSIDE').toEqual(Object.keys(NAMED_OUTSIDE).sort());
  });

  it('no hand-written file outside the tests lists every kind: such lists are generated from the registry', () => {
    // The demo's rules and scenario: joined from each kind's demo.yaml (src/rules/demo.spec.ts).
    const generated = new Set(['docs/rules.md', 'docs/schema/rules.schema.json', 'docs/grafana/avawatch.json', 'config/demo/rules.yaml', 'config/demo/scenario.yaml']);
    const lists = repositoryFiles().filter((file) => {
      if (file.startsWith('test/') || /\.spec\.ts$/.test(file) || generated.has(file) || /^src\/rules\/[^/]+\//.test(file)) return false;
      // README.md's and docs/metrics.md's generated parts (registry.spec.ts writes them).
      const text = readFileSync(file, 'utf8').replace(/<!-- Generated [\s\S]*?<!-- End of the generated [^>]*-->/g, '');
      return KINDS.every((kind) => new RegExp(`(?<![\\w-])${kind}(?![\\w-])`).test(text));
    });
    expect(lists.sort(), 'a new list of every kind: generate it from the registry, or say why in LISTS_EVERY_KIND').toEqual(Object.keys(LISTS_EVERY_KIND).sort());
  });
});

// ---- Small files: a file of src/ (its specs too) reads whole, at most 400 lines.

const MAX_LINES = 400;
/** Over the limit until they are split (issue 42); a file here must still be over it, so the list cannot go stale. */
const OVER_400: readonly string[] = [];

function allTs(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return allTs(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('small files', () => {
  it(`no src/ file over ${MAX_LINES} lines`, () => {
    const lines = new Map(allTs('src').map((file) => [file, readFileSync(file, 'utf8').split('\n').length - 1]));
    const over = [...lines].filter(([file, n]) => n > MAX_LINES && !OVER_400.includes(file)).map(([file, n]) => `${file}: ${n}`);
    expect(over, `split these along a seam (a cohesive part into its own file)`).toEqual([]);
    const stale = OVER_400.filter((file) => (lines.get(file) ?? 0) <= MAX_LINES);
    expect(stale, 'no longer over the limit (or gone): take them out of OVER_400').toEqual([]);
  });
});

// ---- One clock. The daemon reads the time and waits only through the Clock it is handed
// (src/base/clock.ts): the App's, which a rule test sets and the demo runs faster. A call of
// the host's clocks or timers anywhere else is one the fake clock does not move.

/** The files that may read the host's clocks or set its timers themselves, with why. */
const ALLOWED: Readonly<Record<string, string>> = {
  'src/base/clock.ts': "the Clock itself: systemClock reads Date and performance, once, here",
  'src/base/timers.ts': "the host's setTimeout behind every clock's timers (clamped to what it can hold)",
};
/** The simulator is another system with its own time: its world runs on the host's clock, its server answers at the host's pace. */
const OWN_TIME = /^src\/sim\//;

/** `Date.now()`, `new Date()` without an argument, `performance.now()`, setTimeout/setInterval, node:timers and node:perf_hooks, as code (not in comments or strings). */
function hostClockCalls(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  if (!/Date|performance|setTimeout|setInterval|timers|perf_hooks/.test(text)) return [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) => found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${what}`);
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression.getText(source).replace(/^globalThis\./, '');
      if (/^(Date\.now|performance\.now|setTimeout|setInterval)$/.test(callee)) at(node, callee);
    }
    if (ts.isNewExpression(node) && node.expression.getText(source) === 'Date' && (node.arguments?.length ?? 0) === 0) at(node, 'new Date()');
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && /^(node:)?(timers|perf_hooks)/.test(node.moduleSpecifier.text)) at(node, node.moduleSpecifier.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

// ---- The pipeline's ends: one way in, one way out (docs/delivery.md "The pipeline").

/** The files of src/ (not specs) whose code calls `name(`. */
function callers(name: string): string[] {
  return files.filter((f) => new RegExp(`\\.${name}\\(`).test(readFileSync(f, 'utf8'))).sort();
}

describe('the alert pipeline', () => {
  it('only the pipeline\'s enqueue commits an evaluation', () => {
    expect(callers('commitEvaluation').filter((f) => !f.startsWith('src/store/'))).toEqual(['src/alerts/pipeline/enqueue.ts']);
  });

  it('only delivery sends', () => {
    const sends = files.filter((f) => !f.startsWith('src/channels/') && !f.startsWith('src/sim/') && /\bnotifier\.send\(|\.send\(\s*(messages|\[)/.test(readFileSync(f, 'utf8')));
    expect(sends).toEqual(['src/delivery/delivery.ts']);
  });

  it('the App wires: it imports no route, silence or digest module (the pipeline is built from the config)', () => {
    const app = graph.get('src/app/app.ts') ?? [];
    expect(app.filter((t) => /^src\/(alerts\/(route|silence|pipeline\/(route|mute|group))|channels\/digest)\.ts$/.test(t))).toEqual([]);
    expect(app.length).toBeGreaterThan(10);
  });
});

describe('one clock', () => {
  it('no wall-clock call outside the clock: src/ reads the time and sets timers through the Clock it is handed, except where ALLOWED says why', () => {
    const calls = files.filter((f) => !(f in ALLOWED) && !OWN_TIME.test(f)).flatMap(hostClockCalls);
    expect(calls, 'take the clock handed in (a constructor argument or option; systemClock at a command), or say why in ALLOWED').toEqual([]);
  });

  it('each allowed file still reads the host itself (a stale entry goes)', () => {
    expect(Object.keys(ALLOWED).filter((f) => hostClockCalls(f).length === 0)).toEqual([]);
  });

  it('the check sees a call in code, not one in a comment or a string', () => {
    const probe = join(mkdtempSync(join(tmpdir(), 'clock-')), 'probe.ts');
    writeFileSync(probe, "// Date.now()\nconst s = 'setTimeout(f, 1)';\nconst t = Date.now();\nsetTimeout(() => new Date(), 5);\nnew Date(t);\n");
    expect(hostClockCalls(probe).map((c) => c.replace(/^.*probe\.ts:/, ''))).toEqual(['3 Date.now', '4 setTimeout', '4 new Date()']);
  });
});
