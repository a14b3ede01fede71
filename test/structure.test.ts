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
    expect(graph.get('src/types.ts')).toEqual([]);
    expect(graph.get('src/retry.ts')).toEqual([]);
  });

  it('the API layer imports neither the rules, the engine, the config loader nor the channels', () => {
    const wrong = [...graph].flatMap(([file, targets]) =>
      file.startsWith('src/api/') ? targets.filter((t) => /^src\/(rules|engine|notify|config)\//.test(t)).map((t) => `${file} → ${t}`) : [],
    );
    expect(wrong).toEqual([]);
  });
});
