import fc from 'fast-check';
import type { State as NodeState } from '../../src/rules/node-health/schema.js';
import { Violation } from './checks.js';
import { poll, type Run } from './commands.js';
import type { Distortion } from './service.js';
import { NODES, watched, type Model } from './world.js';

// Issue 39: node-health's peer count comes from the health answer (the network check's
// connectedPeers), or /ext/metrics' avalanche_network_peers while the health API is off; never
// from info.peers. The invariant: the figure node-health holds is the node's count, however
// many peers, with the health API on or off, and nothing fails for it. commands.ts registers
// this family and this file uses its steps: import commands.ts first.

type Cmd = fc.AsyncCommand<Model, Run>;

/** What the simulated nodes start with (src/sim/node.ts `fresh`). */
const DEFAULT_PEERS = 60;

const short = (node: string) => node.slice(7, 12);
const SHARE_MS = 10_000;

function healthOff(node: string): Distortion {
  return { kind: 'http', match: `^/node/${node}/ext/health$`, status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: '404 page not found\n' };
}

/** The node connected to `peers` (the daemon's rule has minPeers off: nothing fires on it), its health API on or off; then back. */
export class Peers implements Cmd {
  constructor(
    readonly node: string,
    readonly peers: number,
    readonly health: 'on' | 'off',
  ) {}
  check = (m: Model) => watched(m, this.node);
  async run(model: Model, run: Run) {
    const step = this.toString();
    const d = run.d;
    d.world.nodes.set({ nodeId: this.node, peers: this.peers });
    if (this.health === 'off') d.service.set([healthOff(this.node)]);
    // Past the client's window in which one metrics read answers the next (shareMs, 5 s).
    d.world.clock.advance(SHARE_MS);
    model.nowMs += SHARE_MS;
    try {
      // Not clean with the health API off: a failing check the model holds goes unread.
      await poll(run, model, step, this.health === 'on');
      const st = d.app.engine.view('node')?.states.get(this.node) as NodeState | undefined;
      const failing = d.app.failures.entities('node').find((e) => e.entity === this.node);
      if (failing) throw new Violation(`${step}: the node fails the rule ("${failing.error}") for its peer count`);
      if (st?.unreachableSince !== undefined) throw new Violation(`${step}: a node that answers is called unreachable (${st.unreachable})`);
      if (st?.peers !== this.peers) throw new Violation(`${step}: node-health holds ${st?.peers} peers, the node has ${this.peers} (health API ${this.health})`);
    } finally {
      d.service.clear();
      d.world.nodes.set({ nodeId: this.node, peers: DEFAULT_PEERS });
    }
    await poll(run, model, `${step} (back)`, false);
  }
  toString = () => `node ${short(this.node)} has ${this.peers} peers, health API ${this.health}`;
}

/** The families of this file's steps (registered in commands.ts). */
export const healthFamilies: Record<string, fc.Arbitrary<Cmd>> = {
  peers: fc.tuple(fc.constantFrom(...NODES), fc.constantFrom(5_000, 12, 3_150), fc.constantFrom<'on' | 'off'>('on', 'off')).map(([n, p, h]) => new Peers(n, p, h)),
};
