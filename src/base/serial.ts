/**
 * Runs tasks one at a time, each once the one before has settled. The store answers with
 * Promises (store/types.ts): a read-modify-write that was one synchronous step stays whole,
 * never interleaved with another at its awaits.
 */
export class Serial {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task);
    // A failed task is its caller's to handle; the next one runs all the same.
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
