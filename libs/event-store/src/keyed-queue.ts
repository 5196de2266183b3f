/**
 * Runs tasks one at a time per key, in call order; different keys run concurrently. A key's entry
 * is dropped when its last task settles, so memory is bounded by the keys in flight.
 */
export interface KeyedQueue {
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
  /** Keys with a task queued or running. */
  readonly size: number;
}

export const createKeyedQueue = (): KeyedQueue => {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run: <T>(key: string, task: () => Promise<T>): Promise<T> => {
      const previous = tails.get(key) ?? Promise.resolve();
      const result = previous.then(task);
      const tail = result.then(
        () => undefined,
        () => undefined,
      );
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return result;
    },
    get size() {
      return tails.size;
    },
  };
};
