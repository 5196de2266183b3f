import { createKeyedQueue } from './keyed-queue';

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

describe('createKeyedQueue', () => {
  it('runs tasks of one key one at a time, in call order, even when one fails', async () => {
    const queue = createKeyedQueue();
    const log: string[] = [];
    const gate = deferred();
    const first = queue.run('s', async () => {
      log.push('1 start');
      await gate.promise;
      log.push('1 end');
      throw new Error('boom');
    });
    const second = queue.run('s', async () => {
      log.push('2');
      return 2;
    });
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['1 start']);
    gate.resolve();
    await expect(first).rejects.toThrow('boom');
    await expect(second).resolves.toBe(2);
    expect(log).toEqual(['1 start', '1 end', '2']);
  });

  it('runs different keys concurrently and forgets a key once it is idle', async () => {
    const queue = createKeyedQueue();
    const gate = deferred();
    const log: string[] = [];
    const a = queue.run('a', async () => {
      await gate.promise;
      log.push('a');
    });
    const b = queue.run('b', async () => {
      log.push('b');
    });
    await b;
    expect(log).toEqual(['b']);
    expect(queue.size).toBeGreaterThanOrEqual(1);
    gate.resolve();
    await a;
    await new Promise((r) => setImmediate(r));
    expect(queue.size).toBe(0);
  });
});
