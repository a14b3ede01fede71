// Module hooks (node:module register) that let Node run src/ as it is: `./x.js` imports find
// `x.ts`, and a .ts file is compiled one module at a time (types dropped, nothing checked).
import { readFile } from 'node:fs/promises';
import { URL } from 'node:url';
import ts from 'typescript';

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
  const { outputText } = ts.transpileModule(source, {
    fileName: url,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true, sourceMap: false },
  });
  return { format: 'module', source: outputText, shortCircuit: true };
}
