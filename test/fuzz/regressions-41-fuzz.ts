import type fc from 'fast-check';
import { Advance, Real, type Run } from './commands.js';
import { BadSweep } from './steps-baseline-l1.js';
import { Revoked } from './steps-delivery-node.js';
import { Expire } from './steps-expire.js';
import { HealthApiOff } from './steps-node-115.js';
import { NODES, UPTIME_HYSTERESIS, UPTIME_WARNING, type Model } from './world.js';

// Issue 41: what the model judges exactly now: node-health's `for`, validator-health's uptime
// levels and `uptime: false`, and a receiver down past delivery.maxAge. Each case fails with
// the mutant it is named for planted (docs/testing.md, "The invariant fuzzer").

const [A, B, C] = NODES as [string, string, string];

export const REGRESSIONS_41: Array<[string, Array<fc.AsyncCommand<Model, Run>>]> = [
  // lifecycle.ts: `now - startedAt` → `now + startedAt` pages at the first poll.
  [
    'a failing check shorter than node-health\'s `for` pages nobody; held past it, it pages once',
    [
      new Real({ what: 'api-failing', node: A, value: true }),
      new Advance(30_000),
      new Real({ what: 'api-failing', node: A, value: false }),
      new Real({ what: 'api-failing', node: A, value: true }),
      new Advance(60_000),
      new Advance(60_000),
      new Real({ what: 'api-failing', node: A, value: false }),
    ],
  ],
  // uptime.ts levelsFor: `uptime: false` no longer turning uptime alerts off fires health-off.
  ['an uptime of 50% pages under `health`, never under `health-off` (uptime: false)', [new Real({ what: 'uptime', node: B, value: 50 }), new Real({ what: 'uptime', node: B, value: 0 })]],
  // uptime.ts tierOf: `uptime < l.warning` → `<=` warns at the level; hysteresis on entry warns inside it.
  [
    `uptime at the ${UPTIME_WARNING}% warning level warns nobody, just under it warns once, left only at +${UPTIME_HYSTERESIS}`,
    [
      new Real({ what: 'uptime', node: B, value: UPTIME_WARNING }),
      new Real({ what: 'uptime', node: B, value: UPTIME_WARNING + UPTIME_HYSTERESIS / 2 }),
      new Real({ what: 'uptime', node: B, value: UPTIME_WARNING - 0.1 }),
      new Real({ what: 'uptime', node: B, value: UPTIME_WARNING + UPTIME_HYSTERESIS / 2 }),
      new Real({ what: 'uptime', node: B, value: UPTIME_WARNING + UPTIME_HYSTERESIS }),
    ],
  ],
  ['the webhook down past maxAge: what waited is dropped, never sent late', [new Expire(C, 503)]],
  // The long run's counterexample (seed 424242, a loaded machine): "slack took a notification
  // again, and the heartbeat still names it". Replayed alone it passes; the check now judges
  // the receiver green only once a notification to it was sent, as the flip may send none.
  [
    'slack revoked after a short sweep and a health API off: green again only once it took a notification',
    [new BadSweep('short', true), new HealthApiOff(C, 'low'), new Real({ what: 'capacity', node: A, value: '6948766000000000' }), new Revoked('slack', A)],
  ],
];
