import type { Evaluation } from './types.js';

/**
 * The states an evaluation gives back, for a kind with an entity per watched node. Most polls
 * of a large rule change nothing, or a few of 100k states: the entities whose state is new are
 * told apart (`changed`), the engine looks at those alone, and the Map of every state is made
 * only if something reads it (a rule's test does; the engine does not). When nothing changed,
 * it is `previous` itself.
 */
export class NextStates<S> {
  readonly #previous: ReadonlyMap<string, S>;
  /** Every entity given a state, in order: kept ones and new ones. */
  readonly #entities: string[] = [];
  /** The entities given a new state (a first one, or a changed one). */
  readonly #changed = new Map<string, S>();
  /** How many entities of `previous` have a state again: when all do, none was left out. */
  #fromPrevious = 0;
  /** Every state, once made (after the last keep or set). */
  #states: Map<string, S> | undefined;

  constructor(previous: ReadonlyMap<string, S>) {
    this.#previous = previous;
  }

  /** The entity keeps the state `previous` holds for it (the very object; it holds one). */
  keep(entity: string): void {
    this.#fromPrevious++;
    this.#entities.push(entity);
  }

  /** The entity's state is new (a first one, or a changed one). */
  set(entity: string, state: S): void {
    if (this.#previous.has(entity)) this.#fromPrevious++;
    this.#entities.push(entity);
    this.#changed.set(entity, state);
  }

  /** An entity's state now (what `states` holds), once every entity was kept or set. */
  get(entity: string): S | undefined {
    return this.#changed.get(entity) ?? (this.#complete() ? this.#previous.get(entity) : this.#all().get(entity));
  }

  /**
   * The evaluation's `states` and `changed`: every state, and, when no entity of `previous` was
   * left out, the ones that are new. `states` is made when first read, so the evaluation is
   * built with Object.assign onto this object, never spread (a spread reads it).
   */
  done(): Pick<Evaluation<S>, 'states' | 'changed'> {
    if (!this.#complete()) return { states: this.#all() };
    const changed = this.#changed;
    // The engine keeps `previous` and only reads what it is given back: handed over as is.
    if (changed.size === 0) return { states: this.#previous as Map<string, S>, changed };
    const all = () => this.#all();
    return {
      get states() {
        return all();
      },
      changed,
    };
  }

  #complete(): boolean {
    return this.#fromPrevious === this.#previous.size;
  }

  #all(): Map<string, S> {
    this.#states ??= new Map(this.#entities.map((entity) => [entity, this.#changed.get(entity) ?? (this.#previous.get(entity) as S)]));
    return this.#states;
  }
}
