import type fc from 'fast-check';
import type { Run } from './commands.js';
import { Advance, Real } from './commands.js';
import { ClockStep } from './steps-clock.js';
import { Reload } from './steps-reload.js';
import type { Model } from './world.js';
import { NODES } from './world.js';

// Issue 37: reloads that edit the fleet, each as the steps that showed the receivers a lie.

const [A, B, C] = NODES as [string, string, string, string];

export const REGRESSIONS_37_RELOAD: Array<[string, Array<fc.AsyncCommand<Model, Run>>]> = [
  // Found by the long run (seed 424242) in the judge: node-health's notifications were counted under a wrong key, so its "no longer watched" looked unsent.
  ['a validator removed while its node-health check fires: its "no longer watched" is counted as the change', [new ClockStep(-24 * 3_600_000, A), new Reload('remove', A)]],
  ['a validator removed from the inventory while its uptime alert fires is said to be "back above"', [new Real({ what: 'uptime', node: A, value: 84 }), new Reload('remove', A)]],
  ['a validator moved to another team leaves the old team holding FIRING', [new Real({ what: 'uptime', node: B, value: 50 }), new Reload('move', B)]],
  ['a renamed validator leaves Alertmanager holding the old label set firing', [new Real({ what: 'uptime', node: C, value: 50 }), new Reload('rename', C)]],
  ['a validator removed, then added back, fires again where it is', [new Real({ what: 'uptime', node: C, value: 50 }), new Reload('remove', C), new Advance(5 * 60_000), new Reload('add', C)]],
];
