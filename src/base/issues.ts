import type { z } from 'zod';
import { SECRET_KEYS } from './fields.js';
import { formatPath, type ConfigProblem, type ConfigPath, type YamlSource } from './source.js';

/** zod issues as problems a person can act on, each at the line it is about. */
export function issuesToProblems(
  source: YamlSource,
  issues: readonly z.core.$ZodIssue[],
  prefix: ConfigPath = [],
  secretKeys: ReadonlySet<string> = SECRET_KEYS,
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path.filter((p): p is string | number => typeof p !== 'symbol')];
    if (source.interpolationFailed(path)) continue; // already reported as the missing variable
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) problems.push(source.problem(path, `unknown key "${key}"`, key));
      continue;
    }
    if (issue.code === 'invalid_key') {
      const key = path.at(-1);
      const inner = issue.issues[0]?.message ?? issue.message;
      problems.push({ ...source.problem(path.slice(0, -1), inner, String(key)), path: formatPath(path) });
      continue;
    }
    // `false` or a block, the block written with a mistake inside: the mistakes at their keys,
    // not zod's bare "Invalid input" at the block (a union with its own message keeps it).
    // Only when one branch is the value's shape.
    if (issue.code === 'invalid_union' && issue.message === 'Invalid input' && !('discriminator' in issue && issue.discriminator)) {
      const inside = issue.errors.filter((branch) => branch.length > 0 && branch.every((i) => i.path.length > 0));
      if (inside.length === 1) {
        problems.push(...issuesToProblems(source, (inside[0] ?? []).map((i) => ({ ...i, path: [...issue.path, ...i.path] })), prefix, secretKeys));
        continue;
      }
    }
    const last = path.findLast((p) => typeof p === 'string');
    const value = valueAt(source.data, path);
    problems.push(source.problem(path, describe(issue, secretKeys.has(String(last)) ? hidden(value) : value)));
  }
  return problems;
}

function describe(issue: z.core.$ZodIssue, value: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined) return `required (expected ${issue.expected})`;
      return `expected ${issue.expected}, got ${kindOf(value)}`;
    case 'invalid_union':
      if ('discriminator' in issue && issue.discriminator) {
        const options = (issue as { options?: unknown[] }).options ?? [];
        const list = options.map(String).join(', ');
        if (value === undefined) return `required: one of ${list}`;
        return `unknown ${issue.discriminator} ${JSON.stringify(value)}: expected one of ${list}`;
      }
      return issue.message;
    case 'invalid_value': {
      if (value === undefined) return `required: one of ${issue.values.map(String).join(', ')}`;
      const list = issue.values.map((v) => String(v)).join(', ');
      return `expected one of ${list}, got ${JSON.stringify(value)}`;
    }
    case 'too_small':
      if (issue.origin === 'array' && issue.message.startsWith('Too small')) return `needs at least ${issue.minimum} item(s)`;
      return issue.message;
    default:
      return issue.message;
  }
}

/** Stands in for a secret's value: its kind only. */
class Hidden {
  constructor(readonly type: string) {}
  toJSON(): string {
    return `a ${this.type} (value not shown: it is a secret)`;
  }
}

function hidden(value: unknown): unknown {
  return value === undefined ? undefined : new Hidden(value === null ? 'null' : typeof value);
}

function kindOf(value: unknown): string {
  if (value instanceof Hidden) return value.toJSON();
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${JSON.stringify(value)}`;
}

export function valueAt(data: unknown, path: ConfigPath): unknown {
  let node = data;
  for (const part of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[part];
  }
  return node;
}
