/**
 * A local server speaking OpenAI's chat-completions wire format (JSON, or SSE chunks for `stream: true`), scripted
 * like a tiny model: a user question about cities answers with one parallel `get_weather` call
 * per city; once every call has its tool message, it answers in text with what the tools said.
 * It keeps every request body so a test can see what the framework sent.
 */
import http from 'node:http';
import { type AddressInfo } from 'node:net';

interface ChatMessage {
  role: string;
  content?: string | { type: string; text?: string }[] | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

const text = (m: ChatMessage): string =>
  typeof m.content === 'string'
    ? m.content
    : (m.content ?? []).map((p) => (p.type === 'text' ? (p.text ?? '') : '')).join('');

export const startMockOpenAiChat = async () => {
  const requests: { messages: ChatMessage[]; model: string }[] = [];
  let calls = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        return res.end(
          JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }),
        );
      }
      const body = JSON.parse(raw) as { messages: ChatMessage[]; model: string };
      requests.push(body);
      const last = body.messages[body.messages.length - 1];
      const cities =
        last.role === 'user'
          ? [...text(last).matchAll(/\b([A-Z][a-z]+)\b/g)]
              .map((m) => m[1])
              .filter((c) => c !== 'Weather' && c !== 'What')
          : [];
      let message: Record<string, unknown>;
      let finish: string;
      if (last.role === 'user' && cities.length > 0) {
        message = {
          role: 'assistant',
          content: null,
          tool_calls: cities.map((city) => ({
            id: `call_${++calls}`,
            type: 'function',
            function: { name: 'get_weather', arguments: JSON.stringify({ city }) },
          })),
        };
        finish = 'tool_calls';
      } else {
        const lastAssistant = body.messages.map((m) => m.role).lastIndexOf('assistant');
        const results = body.messages
          .slice(lastAssistant)
          .filter((m) => m.role === 'tool')
          .map(text);
        message = {
          role: 'assistant',
          content:
            results.length > 0 ? `Forecast: ${results.join('; ')}` : `You said: ${text(last)}`,
        };
        finish = 'stop';
      }
      const prompt = JSON.stringify(body.messages).length;
      const usage = {
        prompt_tokens: Math.ceil(prompt / 4),
        completion_tokens: 7,
        total_tokens: Math.ceil(prompt / 4) + 7,
      };
      if ((body as { stream?: boolean }).stream === true) {
        // The same answer as chat.completion.chunk events (Server-Sent Events), then [DONE].
        const head = {
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion.chunk',
          created: 1_700_000_000 + requests.length,
          model: body.model,
        };
        const calls = (
          message.tool_calls as { id: string; type: string; function: object }[] | undefined
        )?.map((c, index) => ({ index, ...c }));
        const chunks = [
          {
            ...head,
            choices: [
              {
                index: 0,
                delta: {
                  role: 'assistant',
                  content: message.content ?? '',
                  ...(calls ? { tool_calls: calls } : {}),
                },
                finish_reason: null,
              },
            ],
          },
          { ...head, choices: [{ index: 0, delta: {}, finish_reason: finish }] },
          { ...head, choices: [], usage },
        ];
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        return res.end(
          chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n',
        );
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion',
          created: 1_700_000_000 + requests.length,
          model: body.model,
          choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
          usage,
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
};
