import type fc from 'fast-check';
import type { Run } from './commands.js';
import { Advance, Real } from './commands.js';
import { Reload } from './steps-reload.js';
import type { Model } from './world.js';
import { NODES } from './world.js';

// Issue 37: reloads that edit the fleet, each as the steps that showed the receivers a lie.

const [A, B, C] = NODES as [string, string, string, string];

export const REGRESSIONS_37_RELOAD: Array<[string, Array<fc.AsyncCommand<Model, Run>>]> = [
  ['a validator removed from the inventory while its uptime alert fires is said to be "back above"', [new Real({ what: 'uptime', node: A, value: 84 }), new Reload('remove', A)]],
  ['a validator moved to another team leaves the old team holding FIRING', [new Real({ what: 'uptime', node: B, value: 50 }), new Reload('move', B)]],
  ['a renamed validator leaves Alertmanager holding the old label set firing', [new Real({ what: 'uptime', node: C, value: 50 }), new Reload('rename', C)]],
  ['a validator removed, then added back, fires again where it is', [new Real({ what: 'uptime', node: C, value: 50 }), new Reload('remove', C), new Advance(5 * 60_000), new Reload('add', C)]],
];
