import { unanchorSystemClock } from '../../src/base/clock.js';

// Each test file starts with the steady clock anchored on the real wall: files share modules
// (vitest.config.ts, isolate: false), and a file before this one may have faked Date.
unanchorSystemClock();
