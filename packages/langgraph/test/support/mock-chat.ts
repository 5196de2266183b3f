/**
 * A local server speaking OpenAI's Chat Completions wire format (`POST /v1/chat/completions`,
 * JSON answers), with a fixed script: a request whose last message is a tool result is answered
 * in text; a user asking to delete a file gets a `delete_file` call, one asking about the
 * weather a `get_weather` call per city named; anything else is echoed.
 */
import http from 'node:http';

interface ChatMessage {
  role: string;
  content?: string | { type: string; text?: string }[] | null;
}

const textOf = (m: ChatMessage | undefined): string =>
  typeof m?.content === 'string' ? m.content : (m?.content ?? []).map((p) => p.text ?? '').join('');

const CITIES = ['Paris', 'Oslo', 'Rome'];

export interface MockChat {
  baseURL: string;
  /** The requests received, in order. */
  requests: { messages: ChatMessage[] }[];
  close(): Promise<void>;
}

export const startMockChat = async (): Promise<MockChat> => {
  const requests: { messages: ChatMessage[] }[] = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
        return;
      }
      const body = JSON.parse(raw) as { model: string; messages: ChatMessage[] };
      requests.push({ messages: body.messages });
      const last = body.messages[body.messages.length - 1];
      const text = textOf(last);
      const calls: { name: string; args: Record<string, string> }[] = [];
      let answer: string | null = null;
      if (last.role === 'tool') {
        const results = [];
        for (let i = body.messages.length - 1; body.messages[i].role === 'tool'; i--)
          results.unshift(textOf(body.messages[i]));
        answer = `Done: ${results.join('; ')}`;
      } else if (/delete/i.test(text)) {
        calls.push({
          name: 'delete_file',
          args: { path: /(\S+\.\w+)/.exec(text)?.[1] ?? 'notes' },
        });
      } else if (/weather/i.test(text)) {
        for (const city of CITIES.filter((c) => text.includes(c)))
          calls.push({ name: 'get_weather', args: { city } });
      } else answer = `Echo: ${text}`;
      n += 1;
      const message =
        calls.length > 0
          ? {
              role: 'assistant',
              content: null,
              tool_calls: calls.map((c, i) => ({
                id: `call_${n}_${i}`,
                type: 'function',
                function: { name: c.name, arguments: JSON.stringify(c.args) },
              })),
            }
          : { role: 'assistant', content: answer ?? '' };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${n}`,
          object: 'chat.completion',
          created: 1_700_000_000 + n,
          model: body.model,
          choices: [{ index: 0, message, finish_reason: calls.length > 0 ? 'tool_calls' : 'stop' }],
          usage: {
            prompt_tokens: 20 * body.messages.length,
            completion_tokens: 8,
            total_tokens: 20 * body.messages.length + 8,
          },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return {
    baseURL: `http://127.0.0.1:${address.port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
