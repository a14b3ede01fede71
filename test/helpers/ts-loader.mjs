// Passed to vitest's workers (vitest.config.ts execArgv), so to every process they fork. A
// process whose script is TypeScript (an endpoint rule's expression process, started from
// src/ in a test) gets its .ts files compiled as Node loads them; any other process is untouched.
import { register } from 'node:module';
import process from 'node:process';

if (process.argv[1]?.endsWith('.ts')) register('./ts-hooks.mjs', import.meta.url);
