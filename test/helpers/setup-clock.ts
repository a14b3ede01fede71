import { afterAll, vi } from 'vitest';
import { unanchorSystemClock } from '../../src/base/clock.js';

// Each test file starts with the steady clock anchored on the real wall, and on the real
// timers: files share modules and globals (vitest.config.ts, isolate: false), and a file before
// this one may have faked Date and the timers (a fake-time test that failed before its restore).
// A real-time test after it would wait forever on a timer nothing moves.
vi.useRealTimers();
unanchorSystemClock();
afterAll(() => {
  vi.useRealTimers();
  unanchorSystemClock();
});
