import { exportSession, exportSource } from '@arbor/exporters';
import { markdownChunks, toMarkdown } from '@arbor/application';
import { type Message } from '@arbor/domain';
import { assistant, clientFor, type Client, user } from './support/api';
import { type Harness, startHarness } from './support/harness';
import { httpBytes } from './support/http';

/**
 * Every export format is streamed (chunked transfer, no Content-Length, never one string of the
 * whole answer) and its bytes equal the whole-built export of the same conversation.
 */
describe('exports stream in every format, byte for byte the whole-built file', () => {
  const TURNS = 24;
  const BIG = 512 * 1024;
  let h: Harness;
  let c: Client;
  let id: string;
  let treeMessages: Message[];
  let branchMessages: Message[];
  let conversation: { id: string; title: string | null; tip: string | null };
  let checkpoints: { label: string; messageId: string; status: string }[];

  const raw = (path: string) => httpBytes(h.baseUrl, path, c.key);

  beforeAll(async () => {
    h = await startHarness();
    c = clientFor(h, (await h.createTenant('stream')).apiKey);
    id = await c.start({ title: 'A long run' });
    let tip: string | null = null;
    let first: string | null = null;
    for (let i = 0; i < TURNS; i++) {
      tip = (await c.turn(id, tip, [user(`q${i} ${'u'.repeat(BIG)}`), assistant(`a${i}`)])).tip;
      first ??= tip;
    }
    await c.turn(id, first, [user('a branch'), assistant('elsewhere')]);
    await c.moveTip(id, tip!);
    await c.checkpoint(id, 'mid', first!);
    const lines = (await raw(c.conv(id, '/export?format=jsonl&scope=tree'))).bytes
      .toString('utf8')
      .trim()
      .split('\n');
    treeMessages = lines.map((l) => JSON.parse(l) as Message);
    branchMessages = (await raw(c.conv(id, '/export?format=jsonl&scope=branch'))).bytes
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Message);
    conversation = (await c.conversation(id)) as typeof conversation;
    checkpoints = (await c.get(c.conv(id, '/checkpoints'))).body.items;
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('the conversation is large: more than TURNS × 512 KiB of text', () => {
    expect(treeMessages).toHaveLength(TURNS * 2 + 2);
    expect(branchMessages).toHaveLength(TURNS * 2);
  });

  const expectStreamed = (res: Response) => {
    expect(res.status).toBe(200);
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(res.headers.get('content-length')).toBeNull();
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  };

  it('markdown: streamed, and equal to the whole transcript built at once', async () => {
    const { res, bytes } = await raw(c.conv(id, '/export?format=markdown'));
    expectStreamed(res);
    const whole = toMarkdown(conversation.title, branchMessages);
    expect(bytes.length).toBeGreaterThan(TURNS * BIG);
    expect(bytes.equals(Buffer.from(whole, 'utf8'))).toBe(true);
  });

  it.each(['claude-code', 'pi'] as const)(
    '%s: streamed, and equal to the whole session file',
    async (format) => {
      const { res, bytes } = await raw(c.conv(id, `/export?format=${format}`));
      expectStreamed(res);
      const whole = exportSession(format, exportSource(conversation, treeMessages, checkpoints));
      expect(bytes.length).toBeGreaterThan(TURNS * BIG);
      expect(bytes.equals(Buffer.from(whole.text, 'utf8'))).toBe(true);
    },
  );

  it('jsonl: streamed', async () => {
    const { res } = await raw(c.conv(id, '/export?format=jsonl'));
    expectStreamed(res);
  });

  it('no chunk holds more than one message (the answer is never built whole)', () => {
    const largestMessage = Math.max(...treeMessages.map((m) => JSON.stringify(m).length));
    const chunkMax = (chunks: Iterable<string>) => {
      let max = 0;
      let n = 0;
      for (const s of chunks) {
        max = Math.max(max, s.length);
        n++;
      }
      return { max, n };
    };
    const md = chunkMax(markdownChunks(conversation.title, branchMessages));
    expect(md.n).toBeGreaterThan(TURNS * 2);
    expect(md.max).toBeLessThanOrEqual(largestMessage + 256);
    for (const format of ['claude-code', 'pi'] as const) {
      const out = exportSession(format, exportSource(conversation, treeMessages, checkpoints));
      const s = chunkMax(out.chunks());
      expect(s.n).toBe(out.lines.length);
      expect(s.max).toBeLessThanOrEqual(largestMessage + 1024);
    }
  });
});
