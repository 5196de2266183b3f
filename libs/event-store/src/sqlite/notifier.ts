export interface Wait {
  promise: Promise<void>;
  wake(): void;
}

/** In-process "the log grew" signal; its wait timeout doubles as the poll for other processes. */
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
