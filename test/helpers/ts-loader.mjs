// Passed to vitest's workers (vitest.config.ts execArgv), so to every process they fork. A
// process whose script is TypeScript (an endpoint rule's expression process, started from
// src/ in a test) runs that script's bundle, as dist/ would: made with rolldown at the first
// start and kept on disk while the sources it holds are unchanged. Any other process is
// untouched. (Module hooks compiling each file cost 0.17 s more CPU a start: their own thread.)
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';

// In the project's node_modules: what a bundle leaves to be required at run time resolves from there.
const CACHE = fileURLToPath(new URL('../../node_modules/.cache/avawatch-ts-bundles', import.meta.url));

const digest = (...parts) => createHash('sha256').update(parts.join('\0')).digest('hex');

/** The bundle of `entry` on disk, if every file it was made from still reads the same. */
function fresh(dir) {
  try {
    const made = JSON.parse(readFileSync(join(dir, 'inputs.json'), 'utf8'));
    return made.every(([file, sum]) => digest(readFileSync(file, 'utf8')) === sum) ? join(dir, 'bundle.mjs') : undefined;
  } catch {
    return undefined;
  }
}

async function bundle(entry, dir) {
  const { rolldown } = await import('rolldown');
  const build = await rolldown({ input: entry, platform: 'node', logLevel: 'silent' });
  const { output } = await build.generate({ format: 'esm', codeSplitting: false });
  const [chunk] = output;
  const inputs = chunk.moduleIds.filter((id) => !id.startsWith('\0')).map((file) => [file, digest(readFileSync(file, 'utf8'))]);
  mkdirSync(dir, { recursive: true });
  // Written whole or not at all: a process starting beside this one never reads half a file.
  const write = (name, text) => {
    writeFileSync(join(dir, `${name}.${process.pid}`), text);
    renameSync(join(dir, `${name}.${process.pid}`), join(dir, name));
  };
  write('bundle.mjs', chunk.code);
  write('inputs.json', JSON.stringify(inputs));
  return join(dir, 'bundle.mjs');
}

const entry = process.argv[1];
if (entry?.endsWith('.ts')) {
  const dir = join(CACHE, digest(entry));
  await import(pathToFileURL(fresh(dir) ?? (await bundle(entry, dir))).href);
  // The script now runs from its bundle; Node must not load it again as TypeScript, and it
  // loads the main module only once this preload settles. The script ends the process itself
  // (the expression process exits when the daemon disconnects).
  await new Promise(() => {});
}
