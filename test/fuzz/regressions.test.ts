import { describeRegressions } from './replay.js';

// What the invariant fuzzer (daemon.test.ts) once found, replayed on every run whatever its
// random budget draws. Half of them here, half in regressions-2.test.ts: two files, so
// two workers share them (each replay is a whole daemon, mostly waiting on its providers).

describeRegressions(0);
