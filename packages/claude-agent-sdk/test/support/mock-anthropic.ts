/**
 * A local server speaking Anthropic's Messages API (`POST /v1/messages`, JSON or the SSE event
 * stream for `stream: true`), scripted like a tiny model: it answers every request with one
 * text block, `You said: <last user text>`. It keeps every request body so a test can see what
 * Claude Code sent. Test support only (not built nor packed).
 */
import http from 'node:http';
import { type AddressInfo } from 'node:net';

export interface MessagesRequest {
  model: string;
  stream?: boolean;
  system?: unknown;
  messages: { role: string; content: string | { type: string; text?: string }[] }[];
}

const lastUserText = (body: MessagesRequest): string => {
  const last = [...body.messages].reverse().find((m) => m.role === 'user');
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  const texts = last.content.filter((b) => b.type === 'text').map((b) => b.text ?? '');
  return texts[texts.length - 1] ?? '';
};

export const startMockAnthropic = async () => {
  const requests: MessagesRequest[] = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const url = req.url ?? '';
      if (req.method !== 'POST' || !url.startsWith('/v1/messages')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: url } }),
        );
        return;
      }
      const body = JSON.parse(raw) as MessagesRequest;
      if (url.startsWith('/v1/messages/count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: raw.length >> 2 }));
        return;
      }
      requests.push(body);
      const id = `msg_mock_${++n}`;
      const text = `You said: ${lastUserText(body).trim().slice(0, 200)}`;
      const usage = { input_tokens: raw.length >> 2, output_tokens: 7 };
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${n}` });
        res.end(
          JSON.stringify({
            id,
            type: 'message',
            role: 'assistant',
            model: body.model,
            content: [{ type: 'text', text }],
            stop_reason: 'end_turn',
            stop_sequence: null,
            usage,
          }),
        );
        return;
      }
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        'request-id': `req_${n}`,
      });
      const send = (event: string, data: unknown) =>
        res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      send('message_start', {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model: body.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: usage.input_tokens, output_tokens: 1 },
        },
      });
      send('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'text', text: '' },
      });
      send('ping', { type: 'ping' });
      send('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text },
      });
      send('content_block_stop', { type: 'content_block_stop', index: 0 });
      send('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: usage.output_tokens },
      });
      send('message_stop', { type: 'message_stop' });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
