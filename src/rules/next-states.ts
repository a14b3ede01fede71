/**
 * The states an evaluation gives back, for a kind with an entity per watched node. Most polls
 * of a large rule change nothing: then `previous` itself is the answer, and no Map of every
 * entity (100k of them) is built, walked by the engine and dropped each poll. A new Map is
 * made from the first entity whose state is not the very one it had.
 */
export class NextStates<S> {
  readonly #previous: ReadonlyMap<string, S>;
  /** The entities that kept their state, in order, while none changed. */
  readonly #kept: string[] = [];
  #next: Map<string, S> | undefined;

  constructor(previous: ReadonlyMap<string, S>) {
    this.#previous = previous;
  }

  /** The entity keeps `state`: the very object `previous` holds for it. */
  keep(entity: string, state: S): void {
    if (this.#next) this.#next.set(entity, state);
    else this.#kept.push(entity);
  }

  /** The entity's state is new (a first one, or a changed one). */
  set(entity: string, state: S): void {
    if (!this.#next) {
      this.#next = new Map();
      for (const kept of this.#kept) this.#next.set(kept, this.#previous.get(kept) as S);
    }
    this.#next.set(entity, state);
  }

  /**
   * Every entity's state: `previous` itself when each one kept its own and none was left out.
   * The engine only reads what it is given back (it keeps `previous`), so it is handed over as is.
   */
  done(): Map<string, S> {
    if (this.#next) return this.#next;
    if (this.#kept.length === this.#previous.size) return this.#previous as Map<string, S>;
    return new Map(this.#kept.map((entity) => [entity, this.#previous.get(entity) as S]));
  }
}
