/**
 * A local server speaking OpenAI's Responses API (`POST /v1/responses`), JSON or SSE stream
 * (`stream: true`: response.created, output_item.added/done, output_text.delta,
 * response.completed; "midstream" in a streamed question ends in `response.failed`), scripted like a tiny model. On a user message: "fail" answers a 400
 * error object; "delete <name>" calls `delete_file`; a weather question gets, for its capitalised city names, a reasoning item
 * (id, summary, encrypted_content) and one parallel `get_weather` call per city; anything else
 * is echoed. After tool outputs it answers in text with what the tools said. It keeps every
 * request body.
 */
import http from 'node:http';
import { type AddressInfo } from 'node:net';

type Item = { type?: string; role?: string; [key: string]: unknown };
export interface ResponsesRequest {
  model: string;
  input: Item[];
  instructions?: string;
  stream?: boolean;
  tools?: { name?: string }[];
}

const text = (item: Item): string => {
  const c = item.content;
  if (typeof c === 'string') return c;
  return Array.isArray(c)
    ? c.map((p: { text?: string }) => (typeof p.text === 'string' ? p.text : '')).join('')
    : '';
};

const STOP = new Set(['Weather', 'What', 'Delete', 'Thanks', 'Please', 'And', 'The']);

export const startMockResponses = async () => {
  const requests: ResponsesRequest[] = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const fail = (status: number, message: string, code: string) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code } }),
        );
      };
      if (req.method !== 'POST' || !req.url?.endsWith('/responses'))
        return fail(404, 'not found', 'not_found');
      const body = JSON.parse(raw) as ResponsesRequest;
      requests.push(body);
      const input = body.input;
      const last = input[input.length - 1];
      const output: Item[] = [];
      const id = () => ++n;
      if (last?.type === 'function_call_output') {
        let from = input.length - 1;
        while (from > 0 && input[from - 1].type !== 'function_call') from--;
        const results = input
          .slice(from)
          .filter((i) => i.type === 'function_call_output')
          .map((i) => String(i.output));
        output.push(message(id(), `Forecast: ${results.join('; ')}`));
      } else {
        const said = last ? text(last) : '';
        if (/\bfail\b/i.test(said))
          return fail(400, 'mock model: refused on purpose', 'mock_refusal');
        const del = /delete (\w+)/i.exec(said);
        const cities = [...(/weather/i.test(said) ? said : '').matchAll(/\b([A-Z][a-z]+)\b/g)]
          .map((m) => m[1])
          .filter((c) => !STOP.has(c));
        if (del) {
          output.push(call(id(), 'delete_file', { path: del[1] }));
        } else if (cities.length > 0) {
          const r = id();
          output.push({
            type: 'reasoning',
            id: `rs_${r}`,
            summary: [{ type: 'summary_text', text: `Look up ${cities.join(', ')}` }],
            encrypted_content: `enc_${r}_${cities.join('')}`,
          });
          for (const city of cities) output.push(call(id(), 'get_weather', { city }));
        } else {
          output.push(message(id(), `You said: ${said}`));
        }
      }
      const prompt = Math.ceil(JSON.stringify(input).length / 4);
      const response = {
        id: `resp_${requests.length}`,
        object: 'response',
        created_at: 1_700_000_000 + requests.length,
        status: 'completed',
        error: null,
        incomplete_details: null,
        model: body.model,
        output,
        parallel_tool_calls: true,
        tool_choice: 'auto',
        tools: [],
        usage: {
          input_tokens: prompt,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 9,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: prompt + 9,
        },
      };
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify(response));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      let seq = 0;
      const said = last ? text(last) : '';
      const send = (type: string, data: object) =>
        res.write(
          `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`,
        );
      send('response.created', { response: { ...response, status: 'in_progress', output: [] } });
      if (/\bmidstream\b/i.test(said)) {
        // The stream starts, then the model fails: a `response.failed` terminal event.
        send('response.output_text.delta', {
          item_id: 'msg_x',
          output_index: 0,
          content_index: 0,
          delta: 'Par',
        });
        send('response.failed', {
          response: {
            ...response,
            status: 'failed',
            output: [],
            error: { code: 'server_error', message: 'mock model: failed mid-stream' },
          },
        });
        return res.end();
      }
      output.forEach((item, index) => {
        send('response.output_item.added', { output_index: index, item });
        if (item.type === 'message') {
          const full = text(item);
          for (const delta of full.match(/.{1,8}/gs) ?? [])
            send('response.output_text.delta', {
              item_id: item.id,
              output_index: index,
              content_index: 0,
              delta,
            });
        }
        send('response.output_item.done', { output_index: index, item });
      });
      send('response.completed', { response });
      res.end();
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

const message = (n: number, said: string): Item => ({
  type: 'message',
  id: `msg_${n}`,
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text: said, annotations: [] }],
});

const call = (n: number, name: string, args: object): Item => ({
  type: 'function_call',
  id: `fc_${n}`,
  call_id: `call_${n}`,
  name,
  arguments: JSON.stringify(args),
  status: 'completed',
});
