import { readFileSync } from 'node:fs';
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node } from 'yaml';
import { interpolate } from './interpolate.js';

export type ConfigPath = ReadonlyArray<string | number>;

/** One problem in a config or rule file, printed as `file:line:col: path: message`. */
export interface ConfigProblem {
  file: string;
  line: number;
  col: number;
  path: string;
  message: string;
}

export function formatProblem(p: ConfigProblem): string {
  return `${p.file}:${p.line}:${p.col}: ${p.path === '' ? '(top level)' : p.path}: ${p.message}`;
}

export function formatPath(path: ConfigPath): string {
  let out = '';
  for (const part of path) {
    out += typeof part === 'number' ? `[${part}]` : out === '' ? part : `.${part}`;
  }
  return out;
}

/** A parsed YAML file that can say where any path in it was written. */
export class YamlSource {
  readonly problems: ConfigProblem[] = [];
  readonly data: unknown;
  /** False when the YAML itself did not parse: then there is no data to validate. */
  readonly syntaxOk: boolean;
  readonly #doc: Document;
  readonly #lines: LineCounter;
  readonly #failed = new Set<string>();

  constructor(
    readonly file: string,
    text: string,
    env: NodeJS.ProcessEnv,
  ) {
    this.#lines = new LineCounter();
    this.#doc = parseDocument(text, { lineCounter: this.#lines, prettyErrors: false, uniqueKeys: true });
    for (const err of [...this.#doc.errors, ...this.#doc.warnings]) {
      const [line, col] = this.#position(err.pos[0]);
      this.problems.push({ file, line, col, path: '', message: err.message.split('\n')[0] ?? err.message });
    }
    this.syntaxOk = this.#doc.errors.length === 0;
    if (!this.syntaxOk) {
      this.data = undefined;
      return;
    }
    // Interpolate after parsing, value by value: an environment variable can never inject YAML.
    visit(this.#doc, {
      Scalar: (_key, node, ancestors) => {
        if (typeof node.value !== 'string') return;
        const parent = ancestors.at(-1);
        if (isPair(parent) && parent.key === node) return;
        const result = interpolate(node.value, env);
        if (result.ok) {
          node.value = result.value;
          return;
        }
        const path = pathOf(ancestors, node);
        this.#failed.add(formatPath(path));
        this.problems.push(this.#at(node, path, result.message));
      },
    });
    this.data = this.#doc.toJS();
  }

  static text(file: string): string {
    return readFileSync(file, 'utf8');
  }

  /** A problem located at a path; `key` points at the key itself (for unknown keys). */
  problem(path: ConfigPath, message: string, key?: string): ConfigProblem {
    const node = this.#find(path, key);
    const [line, col] = node?.range ? this.#position(node.range[0]) : [1, 1];
    const full = key === undefined ? path : [...path, key];
    return { file: this.file, line, col, path: formatPath(full), message };
  }

  /** True when the value at this path had a ${VAR} that could not be resolved. */
  interpolationFailed(path: ConfigPath): boolean {
    return this.#failed.has(formatPath(path));
  }

  /** Where a path was written, as [line, col]. */
  position(path: ConfigPath): [number, number] {
    const node = this.#find(path);
    return node?.range ? this.#position(node.range[0]) : [1, 1];
  }

  #at(node: Node, path: ConfigPath, message: string): ConfigProblem {
    const [line, col] = node.range ? this.#position(node.range[0]) : [1, 1];
    return { file: this.file, line, col, path: formatPath(path), message };
  }

  // The deepest node that exists along the path, so a missing key points at its parent.
  #find(path: ConfigPath, key?: string): Node | undefined {
    let node: unknown = this.#doc.contents;
    for (const part of path) {
      let next: unknown;
      if (isMap(node)) next = node.items.find((p) => isScalar(p.key) && p.key.value === part)?.value;
      else if (isSeq(node) && typeof part === 'number') next = node.items[part];
      if (next === undefined || next === null) break;
      node = next;
    }
    if (key !== undefined && isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && p.key.value === key);
      if (pair && isScalar(pair.key)) return pair.key;
    }
    return (node ?? undefined) as Node | undefined;
  }

  #position(offset: number): [number, number] {
    const { line, col } = this.#lines.linePos(offset);
    return [line, col];
  }
}

/** The config path of a node, from the ancestors yaml's visit() hands over. */
function pathOf(ancestors: readonly unknown[], node: unknown): ConfigPath {
  const path: Array<string | number> = [];
  const chain = [...ancestors, node];
  chain.forEach((item, i) => {
    const child = chain[i + 1];
    if (isPair(item) && isScalar(item.key)) path.push(String(item.key.value));
    else if (isSeq(item) && child !== undefined) path.push(item.items.indexOf(child as never));
  });
  return path;
}
