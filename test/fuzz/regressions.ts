import type fc from 'fast-check';
import { Advance, Blip, Jitter, Real, Trouble, type Run } from './commands.js';
import type { Model } from './world.js';
import { NODES } from './world.js';

// The defects the fuzzer found in avawatch (issue 24), each as the steps that show it,
// replayed on every `npm test` so they stay fixed whatever the random budget draws.

const [A, B, C, D] = NODES as [string, string, string, string];
const HOUR = 3600_000;

export const REGRESSIONS: Array<[string, Array<fc.AsyncCommand<Model, Run>>]> = [
  ['an expression that runs away on a huge count freezes the daemon', [new Blip([{ kind: 'field', list: 'validators', field: 'delegatorCount', edge: { set: 1e13 } }])]],
  ['an expression that pads by a huge count kills the daemon', [new Blip([{ kind: 'field', list: 'validators', field: 'delegatorCount', edge: { set: 300_000_000 } }])]],
  ['a list of 40,000 items is evaluated in quadratic time', [new Blip([{ kind: 'items', list: 'validators', how: 'flood' }])]],
  ['a provider asking 25 h dead-letters what waits, at once, as "undelivered after" maxAge', [new Trouble('telegram', { kind: 'too-many', waitSeconds: 90_000 }, 1, A)]],
  ['a provider asking 35 days overflows the timer', [new Trouble('discord', { kind: 'too-many', waitSeconds: 3_000_000 }, 1, A)]],
  ['a provider that answers after the deadline gets a copy on every retry', [new Trouble('webhook', { kind: 'slow', ms: 600 }, 20, A)]],
  ['a huge provider answer is read whole', [new Trouble('slack', { kind: 'huge', status: 200, bytes: 64 * 1024 * 1024 }, 3, A)]],
  ['a redirect is a "network error" retried for a day', [new Trouble('webhook', { kind: 'redirect', status: 307 }, 3, A)]],
  ['a block stamped in milliseconds silences block-production for good', [new Blip([{ kind: 'field', list: 'blocks', field: 'blockTimestamp', edge: { scale: 1000 }, node: A }]), new Advance(3 * HOUR)]],
  ['a block a day ahead silences block-production', [new Blip([{ kind: 'field', list: 'blocks', field: 'blockTimestamp', edge: { shift: 86_400 }, node: A }]), new Advance(3 * HOUR)]],
  ['a version left out for one poll resolves the version alert', [new Blip([{ kind: 'field', list: 'validators', field: 'avalancheGoVersion', edge: { omit: true }, node: B }])]],
  ['a capacity left out for one poll resolves the capacity alert', [new Blip([{ kind: 'field', list: 'validators', field: 'delegationCapacity', edge: { omit: true }, node: C }])]],
  ['an uptime alert resolves "back above" when the validation ended', [new Real({ what: 'uptime', node: B, value: 50 }), new Real({ what: 'end', node: B })]],
  ['uptime alternating 84.9/85.1 sends a message every poll', [new Jitter(B, 85)]],
  ['a Helicon validation at 86%, under the 90% it needs, is only a warning', [new Real({ what: 'uptime', node: A, value: 86 })]],
  ['a 502 that quotes the API key reaches the alerts', [new Blip([{ kind: 'http', match: '/signatureAggregator', status: 502, echoHeaders: true }])]],
  ['one item whose startTimestamp is not a number blinds its whole batch', [new Blip([{ kind: 'field', list: 'validators', field: 'startTimestamp', edge: { set: 'not-a-number' }, node: B }])]],
  ['1.14.0-rc.3 is not older than 1.14.0', [new Real({ what: 'version', node: A, value: 'avalanchego/1.14.0-rc.3' })]],
  ['a status in capitals is a status change', [new Blip([{ kind: 'field', list: 'validators', field: 'validationStatus', edge: { set: 'ACTIVE' }, node: A }])]],
  ['an end time in milliseconds resolves the end warning', [new Blip([{ kind: 'field', list: 'validators', field: 'endTimestamp', edge: { scale: 1000 }, node: D }])]],
  ['an end time of 1e13 (read as milliseconds: the year 2286) resolves the end warning', [new Blip([{ kind: 'field', list: 'validators', field: 'endTimestamp', edge: { set: 1e13 }, node: D }])]],
  // The node view (issue 25): what its model says, over its `for`, and odd answers of the node's own API.
  [
    'node-health: one answer leaving out a failing check, or giving rewarding stake as 1e13, resolves nothing',
    [
      new Real({ what: 'api-failing', node: A, value: true }),
      new Real({ what: 'api-stake', node: A, value: 70 }),
      new Advance(5 * 60_000),
      new Blip([{ kind: 'node', match: '/ext/health$', field: 'checks.database', edge: { omit: true } }]),
      new Blip([{ kind: 'node', match: '/ext/info$', field: 'result.rewardingStakePercentage', edge: { set: '1e13' } }]),
    ],
  ],
  ['node-health: another NodeID behind the API is critical once it held for its `for`', [new Real({ what: 'api-other', node: B, value: true }), new Advance(5 * 60_000)]],
  [
    'node-health: a failing check and a stake warning hold through an API answering HTML, then a timeout',
    [
      new Real({ what: 'api-failing', node: C, value: true }),
      new Real({ what: 'api-stake', node: C, value: 85 }),
      new Advance(5 * 60_000),
      new Blip([{ kind: 'http', match: '/ext/health$', status: 200, body: '<html>upstream</html>' }]),
      new Blip([{ kind: 'http', match: '/ext/info$', status: 200, delayMs: 2_000 }]),
    ],
  ],
];
