/** Runs tasks one at a time per key; different keys run concurrently. */
export interface KeyedQueue {
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
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
