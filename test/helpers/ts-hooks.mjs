// Module hooks (node:module register) that let Node run src/ as it is: `./x.js` imports find
// `x.ts`, and a .ts file is compiled one module at a time (types dropped, nothing checked).
// Compiled text is kept on disk by the source's digest: a process started again (each
// endpoint rule's expression process, in every test) loads no compiler at all.
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { URL } from 'node:url';

const CACHE = join(tmpdir(), 'avawatch-ts-cache');

export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (err) {
    if (!specifier.startsWith('.') || !specifier.endsWith('.js') || !context.parentURL?.endsWith('.ts')) throw err;
    return next(`${specifier.slice(0, -3)}.ts`, context);
  }
}

export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
  const source = await readFile(new URL(url), 'utf8');
  const cached = join(CACHE, `${createHash('sha256').update(url).update('\0').update(source).digest('hex')}.js`);
  const hit = await readFile(cached, 'utf8').catch(() => undefined);
  if (hit !== undefined) return { format: 'module', source: hit, shortCircuit: true };
  const { default: ts } = await import('typescript');
  const { outputText } = ts.transpileModule(source, {
    fileName: url,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true, sourceMap: false },
  });
  await mkdir(CACHE, { recursive: true });
  // Written whole or not at all: a reader never sees half a file.
  const part = `${cached}.${process.pid}`;
  await writeFile(part, outputText);
  await import('node:fs/promises').then((fs) => fs.rename(part, cached));
  return { format: 'module', source: outputText, shortCircuit: true };
}
