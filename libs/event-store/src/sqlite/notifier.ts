/** A pending wait: resolves on the next notification, on timeout, or when woken directly. */
export interface Wait {
  promise: Promise<void>;
  wake(): void;
}

/**
 * In-process "the log grew" signal. Appends made through this store notify; subscriptions wait on
 * it with a timeout, which doubles as the poll for appends made by other processes on the file.
 */
export const createNotifier = () => {
  const waiters = new Set<() => void>();
  return {
    notify(): void {
      if (waiters.size === 0) return;
      const woken = [...waiters];
      waiters.clear();
      for (const wake of woken) wake();
    },
    wait(timeoutMs: number): Wait {
      let wake: () => void = () => undefined;
      const promise = new Promise<void>((resolve) => {
        const timer = setTimeout(() => wake(), timeoutMs);
        wake = () => {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve();
        };
        waiters.add(wake);
      });
      return { promise, wake: () => wake() };
    },
  };
};

export type Notifier = ReturnType<typeof createNotifier>;
