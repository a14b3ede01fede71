import { describeRegressions } from './replay.js';

// The other half of the fuzzer's replayed cases (regressions.test.ts).

describeRegressions(1);
