import { readFileSync } from 'node:fs';
import { ruleKinds } from '../../src/rules/registry.js';

/**
 * A config fixture's `# expect: line:col: path: message` lines, prefixed with its path as
 * the loader prints it. `{kinds}` stands for the registry's kinds in order, so a new kind
 * changes no fixture.
 */
export function expectedProblems(file: string): string[] {
  const kinds = Object.keys(ruleKinds).join(', ');
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('# expect: '))
    .map((l) => `${file}:${l.slice('# expect: '.length).replaceAll('{kinds}', kinds)}`);
}
