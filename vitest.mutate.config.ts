import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// The tests StrykerJS runs against a group's mutants (scripts/mutate.mjs names them): a file is
// judged by the specs and integration tests a developer would run for it, not by the whole suite.
// (Not mergeConfig: it would append to the suite's include, not replace it.)
const include = (process.env.AVAWATCH_MUTATE_TESTS ?? 'src/**/*.spec.ts').split(',');

export default defineConfig({ test: { ...base.test, include, reporters: ['default'] } });
