import { existsSync, readdirSync, readFileSync } from 'node:fs';

// The README's recipes for a new rule kind and a new channel, as the registry specs read them:
// a recipe's text, and the files and folders it names.

/** The text of README.md's section under `### <heading>`, up to the next heading. */
export function recipe(heading: string): string {
  const text = readFileSync('README.md', 'utf8');
  const from = text.indexOf(`\n### ${heading}\n`);
  if (from < 0) throw new Error(`README.md: no "### ${heading}" section`);
  const to = text.slice(from + 1).search(/\n#{1,3} /);
  return to < 0 ? text.slice(from) : text.slice(from, from + 1 + to);
}

/** The paths a recipe names in backticks (`src/…`, `docs/…`, …), the spec files its commands run too. */
export function pathsNamed(text: string): string[] {
  const quoted = [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] as string);
  const paths = quoted.filter((q) => /^(src|docs|rules|config|test)\/[\w./<>-]*$/.test(q));
  const run = quoted.flatMap((q) => [...q.matchAll(/(?:^|\s)((?:src|test)\/[\w./-]+\.ts)/g)].map((m) => m[1] as string));
  return [...new Set([...paths, ...run])];
}

/** Whether a path exists; `<area>` stands for any name (a file of that pattern exists). */
export function exists(path: string): boolean {
  if (!path.includes('<')) return existsSync(path);
  const dir = path.slice(0, path.lastIndexOf('/'));
  const pattern = new RegExp(`^${path.slice(dir.length + 1).replace(/[.]/g, '\\.').replace(/<\w+>/g, '[\\w-]+')}$`);
  return existsSync(dir) && readdirSync(dir).some((f) => pattern.test(f));
}
