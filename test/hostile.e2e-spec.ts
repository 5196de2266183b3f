import { pngBase64 } from '@arbor/domain/testing/images';
import {
  assistant,
  clientFor,
  type Client,
  msg,
  text,
  toolResult,
  toolUse,
  user,
} from './support/api';
import { ADMIN_KEY, type Harness, type HttpResult, startHarness } from './support/harness';

const BODY_LIMIT = 65536;

interface Case {
  name: string;
  send: () => Promise<HttpResult>;
  status: number;
  code: string;
  paths?: string[];
}

describe('hostile requests: precise 4xx problem+json, nothing appended', () => {
  let h: Harness;
  let c: Client;
  let id: string;
  let tip: string;
  let existingMessageId: string;
  beforeAll(async () => {
    h = await startHarness({ ARBOR_BODY_LIMIT_BYTES: String(BODY_LIMIT) });
    c = clientFor(h, (await h.createTenant('hostile')).apiKey);
    id = await c.start();
    const first = await c.turn(id, null, [user('hello', 'm_user_1'), assistant('hi', 'm_asst_1')]);
    tip = first.tip;
    existingMessageId = first.messageIds[0];
  });
  afterAll(async () => {
    await h.destroy();
  });

  const turns = () => c.conv(id, '/turns');
  const raw = (payload: string, headers: Record<string, string> = {}) =>
    h.call('POST', turns(), { key: c.key, raw: payload, headers });
  const post = (body: unknown) => c.post(turns(), body);
  const valid = () => ({ parentId: tip, messages: [user('q'), assistant('a')] });
  const nested = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

  const observe = async () => {
    const conv = await c.get(c.conv(id));
    const log = await h.call('GET', '/v1/admin/log', { key: ADMIN_KEY });
    return { revision: conv.body.revision as number, position: log.body.position as unknown };
  };

  const cases: Case[] = [
    // Malformed JSON.
    {
      name: 'truncated JSON',
      send: () => raw('{"messages": ['),
      status: 400,
      code: 'malformed_json',
    },
    {
      name: 'trailing garbage',
      send: () => raw('{"messages":[]} x'),
      status: 400,
      code: 'malformed_json',
    },
    {
      name: 'empty body with JSON content type',
      send: () => raw(''),
      status: 400,
      code: 'malformed_json',
    },
    {
      name: 'NaN literal',
      send: () => raw('{"messages": NaN}'),
      status: 400,
      code: 'malformed_json',
    },
    // Wrong types at every level.
    {
      name: 'body is an array',
      send: () => post([valid()]),
      status: 400,
      code: 'validation_failed',
    },
    { name: 'body is a string', send: () => raw('"turn"'), status: 400, code: 'validation_failed' },
    { name: 'body is null', send: () => raw('null'), status: 400, code: 'validation_failed' },
    {
      name: 'messages is an object',
      send: () => post({ parentId: tip, messages: { 0: user('q') } }),
      status: 400,
      code: 'validation_failed',
      paths: ['body.messages'],
    },
    {
      name: 'messages empty',
      send: () => post({ parentId: tip, messages: [] }),
      status: 400,
      code: 'validation_failed',
      paths: ['body.messages'],
    },
    {
      name: 'message is a string',
      send: () => post({ parentId: tip, messages: ['hi', assistant('a')] }),
      status: 400,
      code: 'validation_failed',
      paths: ['body.messages[0]'],
    },
    {
      name: 'role is a number',
      send: () =>
        post({ parentId: tip, messages: [{ role: 1, content: [text('q')] }, assistant('a')] }),
      status: 400,
      code: 'validation_failed',
      paths: ['body.messages[0].role'],
    },
    {
      name: 'content block is a string',
      send: () => post({ parentId: tip, messages: [msg('user', ['hi']), assistant('a')] }),
      status: 400,
      code: 'validation_failed',
      paths: ['body.messages[0].content[0]'],
    },
    {
      name: 'text is a number',
      send: () =>
        post({
          parentId: tip,
          messages: [msg('user', [{ type: 'text', text: 42 }]), assistant('a')],
        }),
      status: 400,
      code: 'validation_failed',
      paths: ['body.messages[0].content[0].text'],
    },
    {
      name: 'tool input is an array',
      send: () =>
        post({
          parentId: tip,
          messages: [
            user('q'),
            msg('assistant', [{ type: 'tool_use', id: 't1', name: 'run', input: [1] }]),
            msg('user', [toolResult('t1')]),
            assistant('a'),
          ],
        }),
      status: 400,
      code: 'validation_failed',
      paths: ['body.messages[1].content[0].input'],
    },
    {
      name: 'parentId is a number',
      send: () => post({ parentId: 7, messages: [user('q'), assistant('a')] }),
      status: 400,
      code: 'validation_failed',
      paths: ['body.parentId'],
    },
    {
      name: 'unknown top-level field',
      send: () => post({ ...valid(), extra: true }),
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'unknown block type',
      send: () =>
        post({
          parentId: tip,
          messages: [msg('user', [{ type: 'hologram', data: 'x' }]), assistant('a')],
        }),
      status: 400,
      code: 'validation_failed',
      paths: ['body.messages[0].content[0].type'],
    },
    {
      name: 'block without type',
      send: () => post({ parentId: tip, messages: [msg('user', [{ text: 'x' }]), assistant('a')] }),
      status: 400,
      code: 'validation_failed',
      paths: ['body.messages[0].content[0].type'],
    },
    // Size and depth.
    {
      name: 'string over the body limit',
      send: () =>
        post({ parentId: tip, messages: [user('x'.repeat(BODY_LIMIT + 10)), assistant('a')] }),
      status: 413,
      code: 'payload_too_large',
    },
    {
      name: '10,000 levels of nesting in a tool input',
      send: () =>
        raw(
          `{"parentId":"${tip}","messages":[{"role":"user","content":[{"type":"text","text":"q"}]},{"role":"assistant","content":[{"type":"tool_use","id":"deep","name":"run","input":${nested(10_000)}}]}]}`,
        ),
      status: 400,
      code: 'json_too_deep',
    },
    // Images.
    {
      name: 'invalid base64',
      send: () =>
        post({
          parentId: tip,
          messages: [
            msg('user', [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: '***' } },
            ]),
            assistant('a'),
          ],
        }),
      status: 400,
      code: 'validation_failed',
      paths: ['body.messages[0].content[0].source.data'],
    },
    {
      name: 'PNG declared as jpeg',
      send: () =>
        post({
          parentId: tip,
          messages: [
            msg('user', [
              {
                type: 'image',
                source: { type: 'base64', media_type: 'image/jpeg', data: pngBase64(64) },
              },
            ]),
            assistant('a'),
          ],
        }),
      status: 400,
      code: 'validation_failed',
      paths: ['body.messages[0].content[0].source.media_type'],
    },
    // Turn shape.
    {
      name: 'orphan tool result',
      send: () =>
        post({ parentId: tip, messages: [msg('user', [toolResult('nobody')]), assistant('a')] }),
      status: 422,
      code: 'invalid_turn',
    },
    {
      name: 'unanswered tool call at turn end',
      send: () =>
        post({ parentId: tip, messages: [user('q'), msg('assistant', [toolUse('open')])] }),
      status: 422,
      code: 'invalid_turn',
    },
    {
      name: 'empty content',
      send: () => post({ parentId: tip, messages: [msg('user', []), assistant('a')] }),
      status: 400,
      code: 'validation_failed',
      paths: ['body.messages[0].content'],
    },
    {
      name: 'duplicate message id within the turn',
      send: () => post({ parentId: tip, messages: [user('q', 'dup'), assistant('a', 'dup')] }),
      status: 422,
      code: 'invalid_turn',
    },
    {
      name: 'message id that already exists',
      send: () => post({ parentId: tip, messages: [user('q', existingMessageId), assistant('a')] }),
      status: 422,
      code: 'invalid_turn',
    },
    // Ids.
    {
      name: 'path traversal conversation id',
      send: () =>
        h.call('POST', '/v1/conversations/..%2F..%2Fetc/turns', { key: c.key, body: valid() }),
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'NUL in conversation id',
      send: () => h.call('POST', '/v1/conversations/a%00b/turns', { key: c.key, body: valid() }),
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'very long conversation id',
      send: () =>
        h.call('POST', `/v1/conversations/${'a'.repeat(300)}/turns`, { key: c.key, body: valid() }),
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'traversal in message id',
      send: () => post({ parentId: tip, messages: [user('q', '../../x'), assistant('a')] }),
      status: 400,
      code: 'validation_failed',
      paths: ['body.messages[0].id'],
    },
    {
      name: 'NUL in parentId',
      send: () => post({ parentId: 'a\u0000b', messages: [user('q'), assistant('a')] }),
      status: 400,
      code: 'validation_failed',
      paths: ['body.parentId'],
    },
    {
      name: 'unicode turnId',
      send: () => post({ ...valid(), turnId: 'tü\u202e' }),
      status: 400,
      code: 'validation_failed',
      paths: ['body.turnId'],
    },
    {
      name: 'very long message id',
      send: () => post({ parentId: tip, messages: [user('q', 'm'.repeat(300)), assistant('a')] }),
      status: 400,
      code: 'validation_failed',
      paths: ['body.messages[0].id'],
    },
    // Fastify's router refuses path params over maxParamLength (512) before any route runs: the
    // framework error handler answers it as a problem too.
    {
      name: '5,000-character conversation id',
      send: () =>
        h.call('POST', `/v1/conversations/${'a'.repeat(5000)}/turns`, {
          key: c.key,
          body: valid(),
        }),
      status: 414,
      code: 'uri_too_long',
    },
    {
      name: '513-character conversation id on a read',
      send: () => h.call('GET', `/v1/conversations/${'a'.repeat(513)}/messages`, { key: c.key }),
      status: 414,
      code: 'uri_too_long',
    },
    {
      name: '5,000-character message id without a key',
      send: () => h.call('GET', `/v1/conversations/${id}/messages/${'m'.repeat(5000)}`),
      status: 414,
      code: 'uri_too_long',
    },
    {
      name: 'malformed percent-encoding in the conversation id',
      send: () => h.call('POST', '/v1/conversations/%E0%A4%A/turns', { key: c.key, body: valid() }),
      status: 400,
      code: 'validation_failed',
    },
    // Headers. Bodies are JSON only: any other content type is 415, whatever the body says.
    {
      name: 'text/plain content type',
      send: () => raw(JSON.stringify(valid()), { 'content-type': 'text/plain' }),
      status: 415,
      code: 'unsupported_media_type',
    },
    {
      name: 'text/plain content type on start',
      send: () =>
        h.call('POST', '/v1/conversations', {
          key: c.key,
          raw: '{"title":"x"}',
          headers: { 'content-type': 'text/plain; charset=utf-8' },
        }),
      status: 415,
      code: 'unsupported_media_type',
    },
    {
      name: 'form content type',
      send: () => raw('a=b', { 'content-type': 'application/x-www-form-urlencoded' }),
      status: 415,
      code: 'unsupported_media_type',
    },
    {
      name: 'xml content type',
      send: () => raw('<turn/>', { 'content-type': 'application/xml' }),
      status: 415,
      code: 'unsupported_media_type',
    },
    {
      name: 'duplicate Authorization',
      send: () =>
        h.call('POST', turns(), {
          body: valid(),
          headers: { authorization: `Bearer ${c.key}, Bearer ${c.key}` },
        }),
      status: 401,
      code: 'unauthorized',
    },
    {
      name: 'huge header',
      send: () =>
        h
          .call('POST', turns(), {
            key: c.key,
            body: valid(),
            headers: { 'x-junk': 'j'.repeat(20_000) },
          })
          .catch(() => ({ status: 431 }) as HttpResult),
      status: 431,
      code: '',
    },
    {
      name: 'no key',
      send: () => h.call('POST', turns(), { body: valid() }),
      status: 401,
      code: 'unauthorized',
    },
    // Other endpoints.
    {
      name: 'move tip to a traversal id',
      send: () => c.put(c.conv(id, '/tip'), { messageId: '../x' }),
      status: 400,
      code: 'validation_failed',
      paths: ['body.messageId'],
    },
    {
      name: 'fork with a wrong-typed title',
      send: () => c.post(c.conv(id, '/forks'), { title: 5 }),
      status: 400,
      code: 'validation_failed',
      paths: ['body.title'],
    },
    {
      name: 'start with malformed JSON',
      send: () => h.call('POST', '/v1/conversations', { key: c.key, raw: '{"id":' }),
      status: 400,
      code: 'malformed_json',
    },
  ];

  it.each(cases.map((k) => [k.name, k] as const))('%s', async (_name, k) => {
    const before = await observe();
    const r = await k.send();
    const after = await observe();
    expect(after).toEqual(before);
    expect(r.status).toBe(k.status);
    if (k.code === '') return;
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    expect(r.body.code).toBe(k.code);
    expect(r.body.status).toBe(k.status);
    if (k.paths) {
      const paths = (r.body.errors as { path: string }[]).map((e) => e.path);
      for (const p of k.paths) expect(paths).toContain(p);
    }
  });
});
