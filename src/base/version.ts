import { createRequire } from 'node:module';

// package.json sits two levels above both src/base/ and dist/base/.
const pkg = createRequire(import.meta.url)('../../package.json') as { version: string };
export const VERSION = pkg.version;
