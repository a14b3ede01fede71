import type fc from 'fast-check';
import { type Run } from './commands.js';
import { HealthApiOff, IdleChain, PluginRefused, SaeSwitch } from './steps-node-115.js';
import type { Model } from './world.js';
import { NODES } from './world.js';

// Issue 39's cases of the node as AvalancheGo 1.15 is (steps-node-115.ts; commands.ts is
// imported first: it registers the steps file's family). One of each step, and the first
// sequence the fuzzer failed on (the disk alert then fired, the step had read a cached exposition).

const [A, B, C] = NODES as [string, string, string, string];

export const REGRESSIONS_39_NODE: Array<[string, Array<fc.AsyncCommand<Model, Run>>]> = [
  ['the health API off with a disk alert firing: it stays firing, nothing pages', [new HealthApiOff(A, 'low')]],
  ['an idle P-Chain, then the health API off with a disk alert firing', [new IdleChain(C, 'P'), new HealthApiOff(C, 'low')]],
  ['the C-Chain switches to SAE and restarts: node-bad-blocks retires once, SAE rules quiet', [new SaeSwitch(B)]],
  ['an L1 plugin of protocol 45 refused, then restored: one critical naming the chain, resolved', [new PluginRefused(45)]],
  ['an idle X-Chain polling 0.18/s, 73% successful: not paged', [new IdleChain(B, 'X')]],
];
