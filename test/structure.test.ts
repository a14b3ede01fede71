import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

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
});
