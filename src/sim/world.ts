import type { Network } from '../api/data-api.js';

/** A fault the simulator answers with instead of the real response. */
export interface Fault {
  status: number;
  body?: string;
  retryAfter?: number;
  /** Only requests whose path contains this. */
  pathIncludes?: string;
  /** Answer only after this long (a hung server, for timeout tests). */
  delayMs?: number;
}

/** What the simulated chain holds; tests and the control API change it. */
export class World {
  readonly #validators = new Map<string, unknown[]>();
  readonly faults: Fault[] = [];
  /** How the service answers for a node it has never seen: a 404, or an empty list. */
  unknownNode: 'not-found' | 'empty' = 'not-found';

  setValidators(network: Network, nodeId: string, periods: unknown[]): void {
    this.#validators.set(key(network, nodeId), periods);
  }

  validators(network: Network, nodeId: string): unknown[] | undefined {
    return this.#validators.get(key(network, nodeId));
  }

  /** Takes the next fault for a path, if one is queued. */
  takeFault(path: string): Fault | undefined {
    const index = this.faults.findIndex((f) => f.pathIncludes === undefined || path.includes(f.pathIncludes));
    return index === -1 ? undefined : this.faults.splice(index, 1)[0];
  }
}

// fuji and testnet are the same network.
function key(network: Network, nodeId: string): string {
  return `${network === 'testnet' ? 'fuji' : network}/${nodeId}`;
}
