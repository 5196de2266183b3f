/**
 * `client.stream()` against the real app: every event once and in order, across a connection
 * the proxy cuts mid-stream (the client opens it again with `Last-Event-ID`), live events after
 * the replay, and a refusal as a typed problem.
 */
import http from 'node:http';
import { type AddressInfo } from 'node:net';
import { type Harness, startHarness } from '../../../test/support/harness';
import { ArborClient, ArborProblemError, type MessageInput, type StreamEvent } from '../src';

const user = (text: string): MessageInput => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): MessageInput => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
});

/** Pipes to the app; the first stream connection breaks when its `cutAfter`-th event frame comes. */
const startCuttingProxy = async (target: () => string, cutAfter: number) => {
  const streams: { lastEventId: string | undefined }[] = [];
  let cutAt: string | undefined;
  const server = http.createServer((req, res) => {
    const isStream = /\/stream$/.test(req.url ?? '');
    if (isStream) streams.push({ lastEventId: req.headers['last-event-id'] as string | undefined });
    const cut = isStream && streams.length === 1;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = { ...req.headers } as Record<string, string>;
      delete headers.host;
      const upstream = new AbortController();
      void (async () => {
        const answer = await fetch(target() + req.url, {
          method: req.method,
          headers,
          body: chunks.length ? Buffer.concat(chunks) : undefined,
          signal: upstream.signal,
        });
        res.writeHead(answer.status, Object.fromEntries(answer.headers.entries()));
        let frames = 0;
        for await (const chunk of answer.body ?? []) {
          const text = Buffer.from(chunk as Uint8Array);
          const ids = [...text.toString('utf8').matchAll(/^id: (\d+)$/gm)].map((m) => m[1]);
          frames += ids.length;
          if (cut && frames >= cutAfter) {
            // The connection breaks before this chunk is forwarded (the client had the
            // stream's opening `retry:` frame and nothing else).
            cutAt = ids[0];
            upstream.abort();
            res.socket?.destroy();
            return;
          }
          res.write(text);
        }
        res.end();
      })().catch(() => res.socket?.destroy());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    streams,
    /** The id of the event frame at which the first stream connection broke. */
    cutAt: () => cutAt,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
};

describe('@arbor/client stream()', () => {
  let h: Harness;
  let proxy: Awaited<ReturnType<typeof startCuttingProxy>>;
  let client: ArborClient;

  beforeAll(async () => {
    h = await startHarness();
    proxy = await startCuttingProxy(() => h.baseUrl, 1);
    const { apiKey } = await h.createTenant('client-stream');
    client = new ArborClient({ baseUrl: proxy.url, apiKey, retryDelayMs: 5 });
  });
  afterAll(async () => {
    await proxy.close();
    await h.destroy();
  });

  it('yields every event once, in order, across a cut connection, then live ones', async () => {
    const { id } = await client.startConversation();
    await client.commitTurn(id, [user('q1'), assistant('a1')]);
    const second = await client.commitTurn(id, [user('q2'), assistant('a2')]);

    const seen: StreamEvent[] = [];
    const states: string[] = [];
    const abort = new AbortController();
    let committed = -1;
    const onState = (state: string) => states.push(state);
    for await (const e of client.stream(id, { fromRevision: 0, signal: abort.signal, onState })) {
      seen.push(e);
      if (e.revision === second.revision && committed < 0) {
        // Replayed up to the head: what is committed now arrives live.
        committed = (await client.commitTurn(id, [user('q3'), assistant('a3')])).revision;
      }
      if (committed >= 0 && e.revision === committed) abort.abort();
    }

    const logged: number[] = [];
    for await (const e of client.events(id)) if (e.revision > 0) logged.push(e.revision);
    expect(seen.map((e) => e.revision)).toEqual(logged);
    expect(seen.at(-1)?.type).toBe('TurnCommitted');
    // The first connection broke at its first event; the client opened it again from where it
    // was (nothing received yet: Last-Event-ID 0), and every event still came exactly once.
    expect(proxy.cutAt()).toBe('1');
    expect(proxy.streams.length).toBeGreaterThanOrEqual(2);
    expect(proxy.streams[0].lastEventId).toBe('0');
    expect(proxy.streams[1].lastEventId).toBe('0');
    // Whether the cut came before or after the answer's head, the client said it was
    // reconnecting, then open again.
    expect(states.join(' ')).toMatch(/reconnecting open$/);
  });

  it('starts after fromRevision', async () => {
    const { id } = await client.startConversation();
    const turn = await client.commitTurn(id, [user('q'), assistant('a')]);
    const abort = new AbortController();
    const seen: number[] = [];
    for await (const e of client.stream(id, { fromRevision: 1, signal: abort.signal })) {
      seen.push(e.revision);
      if (e.revision === turn.revision) abort.abort();
    }
    expect(seen[0]).toBe(2);
    expect(seen.at(-1)).toBe(turn.revision);
  });

  it('ends with a typed problem when the conversation is not there', async () => {
    const run = async () => {
      for await (const e of client.stream('no-such-conversation')) void e;
    };
    await expect(run()).rejects.toBeInstanceOf(ArborProblemError);
    await expect(run()).rejects.toMatchObject({ problem: { code: 'conversation_not_found' } });
  });
});
