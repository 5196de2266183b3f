import { type Message } from '@arbor/domain';
import { LiveWindowCache, messageBytes } from './live-window';

/** A tree: a main path m0…m9, and a branch b5…b7 off m4. Depth = index on its path. */
const node = (id: string, parentId: string | null, text = `text of ${id}`): Message => ({
  id,
  parentId,
  role: 'user',
  content: [{ type: 'text', text }],
  turnId: 't',
  createdAt: '2025-01-01T00:00:00.000Z',
});
const main = Array.from({ length: 10 }, (_, i) => node(`m${i}`, i === 0 ? null : `m${i - 1}`));
const branch = [node('b5', 'm4'), node('b6', 'b5'), node('b7', 'b6')];
const pathTo = (tip: string): Message[] => {
  if (tip.startsWith('b')) return [...main.slice(0, 5), ...branch.slice(0, Number(tip[1]) - 4)];
  return main.slice(0, Number(tip.slice(1)) + 1);
};

/** A read model whose active branch ends at `tip`, counting reads and the depths read from. */
function readModel(tip: string) {
  const model = {
    tip,
    reads: [] as number[],
    read: (from: number) => {
      model.reads.push(from);
      return pathTo(model.tip).slice(from);
    },
  };
  return model;
}

describe('LiveWindowCache', () => {
  it('reads a window once while its tip stays, and hands out the same messages', async () => {
    const cache = new LiveWindowCache();
    const rm = readModel('m9');
    const first = await cache.window('t/c', 0, 'm9', rm.read);
    const again = await cache.window('t/c', 0, 'm9', rm.read);
    expect(first).toEqual(main);
    expect(again).toBe(first);
    expect(rm.reads).toEqual([0]);
  });

  it('reads only the messages past the old tip when the tip moved on', async () => {
    const cache = new LiveWindowCache();
    const rm = readModel('m6');
    const before = await cache.window('t/c', 0, 'm6', rm.read);
    rm.tip = 'm9';
    const after = await cache.window('t/c', 0, 'm9', rm.read);
    expect(after).toEqual(main);
    expect(rm.reads).toEqual([0, 7]);
    expect(after[3]).toBe(before[3]);
    expect(before).toHaveLength(7); // the earlier window is not changed in place
  });

  it('cuts the window without reading when the tip moved back along it', async () => {
    const cache = new LiveWindowCache();
    const rm = readModel('m9');
    await cache.window('t/c', 0, 'm9', rm.read);
    rm.tip = 'm4';
    expect(await cache.window('t/c', 0, 'm4', rm.read)).toEqual(pathTo('m4'));
    expect(rm.reads).toEqual([0]);
  });

  it('reads the whole window again when the tip went to another branch', async () => {
    const cache = new LiveWindowCache();
    const rm = readModel('m6');
    await cache.window('t/c', 0, 'm6', rm.read);
    rm.tip = 'b7';
    expect(await cache.window('t/c', 0, 'b7', rm.read)).toEqual(pathTo('b7'));
    // The message at depth 7 (b7) does not follow m6: the branch left the cached path.
    expect(rm.reads).toEqual([0, 7, 0]);
    rm.tip = 'm9';
    expect(await cache.window('t/c', 0, 'm9', rm.read)).toEqual(main);
  });

  it('reads again when the window starts elsewhere (a resume cut), and keeps conversations apart', async () => {
    const cache = new LiveWindowCache();
    const rm = readModel('m9');
    await cache.window('t/c', 0, 'm9', rm.read);
    expect(await cache.window('t/c', 3, 'm9', rm.read)).toEqual(main.slice(3));
    expect(await cache.window('u/c', 3, 'm9', rm.read)).toEqual(main.slice(3));
    expect(rm.reads).toEqual([0, 3, 3]);
  });

  it('keeps no window that does not reach its tip (a read model behind)', async () => {
    const cache = new LiveWindowCache();
    const rm = readModel('m7');
    expect(await cache.window('t/c', 0, 'm9', rm.read)).toEqual(pathTo('m7'));
    rm.tip = 'm9';
    expect(await cache.window('t/c', 0, 'm9', rm.read)).toEqual(main);
    expect(rm.reads).toEqual([0, 0]);
  });

  it('holds at most its bytes, dropping the least recently used window', async () => {
    const one = main.reduce((n, m) => n + messageBytes(m), 0);
    const cache = new LiveWindowCache(2 * one + 10);
    const rm = readModel('m9');
    for (const key of ['a', 'b']) await cache.window(key, 0, 'm9', rm.read);
    await cache.window('a', 0, 'm9', rm.read); // a is now the more recent
    await cache.window('c', 0, 'm9', rm.read); // b goes
    expect(cache.bytes).toBe(2 * one);
    rm.reads.length = 0;
    for (const key of ['a', 'c', 'b']) await cache.window(key, 0, 'm9', rm.read);
    expect(rm.reads).toEqual([0]); // only b was read again
    const tiny = new LiveWindowCache(one - 1);
    tiny.window('a', 0, 'm9', rm.read);
    expect(tiny.bytes).toBe(0);
  });

  it('counts the bytes of text, images, tool calls and results', async () => {
    const big = 'x'.repeat(10_000);
    const m: Message = {
      ...node('i', null),
      content: [
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: big } },
        { type: 'tool_use', id: 'c', name: 'n', input: { big } },
        { type: 'tool_result', tool_use_id: 'c', content: [{ type: 'text', text: big }] },
      ],
    };
    expect(messageBytes(m)).toBeGreaterThan(30_000);
    expect(messageBytes(node('s', null, 'short'))).toBeLessThan(500);
  });
});
