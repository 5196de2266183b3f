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
import { type Harness, startHarness } from './support/harness';

const image = (bytes: number) => ({
  type: 'image',
  source: { type: 'base64', media_type: 'image/png', data: pngBase64(bytes) },
});

const BODY_LIMIT = 8192;
const IMAGE_LIMIT = 2048;

describe('payload limits and block validation (small limits)', () => {
  let h: Harness;
  let c: Client;
  let id: string;
  beforeAll(async () => {
    h = await startHarness({
      ARBOR_BODY_LIMIT_BYTES: String(BODY_LIMIT),
      ARBOR_MAX_IMAGE_BYTES: String(IMAGE_LIMIT),
    });
    c = clientFor(h, (await h.createTenant('limits')).apiKey);
    id = await c.start();
  });
  afterAll(async () => {
    await h.destroy();
  });

  const commitNothing = async (body: unknown) => {
    const before = await c.events(id);
    const r = await c.post(c.conv(id, '/turns'), body);
    expect(await c.events(id)).toEqual(before);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    return r;
  };

  it('413 payload_too_large for a body over ARBOR_BODY_LIMIT_BYTES', async () => {
    const body = { parentId: null, messages: [user('x'.repeat(BODY_LIMIT)), assistant('y')] };
    expect(JSON.stringify(body).length).toBeGreaterThan(BODY_LIMIT);
    const r = await commitNothing(body);
    expect(r.status).toBe(413);
    expect(r.body.code).toBe('payload_too_large');
    // Just under the limit goes through.
    const fits = { parentId: null, messages: [user('x'.repeat(BODY_LIMIT - 200)), assistant('y')] };
    expect(JSON.stringify(fits).length).toBeLessThan(BODY_LIMIT);
    expect((await c.post(c.conv(id, '/turns'), fits)).status).toBe(201);
  });

  it('413 payload_too_large for an image over ARBOR_MAX_IMAGE_BYTES, with its path', async () => {
    const tip = (await c.conversation(id)).tip;
    const body = {
      parentId: tip,
      messages: [msg('user', [text('see'), image(IMAGE_LIMIT + 1)]), assistant('seen')],
    };
    expect(JSON.stringify(body).length).toBeLessThan(BODY_LIMIT);
    const r = await commitNothing(body);
    expect(r.status).toBe(413);
    expect(r.body.code).toBe('payload_too_large');
    expect(r.body.errors).toEqual([
      expect.objectContaining({
        path: 'body.messages[0].content[1].source.data',
        code: 'image_too_large',
      }),
    ]);
    // Inside a tool result too.
    const nested = await commitNothing({
      parentId: tip,
      messages: [
        user('shoot'),
        msg('assistant', [toolUse('s1', 'screenshot')]),
        msg('user', [toolResult('s1', [text('shot'), image(IMAGE_LIMIT + 1)])]),
        assistant('ok'),
      ],
    });
    expect(nested.status).toBe(413);
    expect(nested.body.errors[0].path).toBe('body.messages[2].content[0].content[1].source.data');
    // At the limit exactly, it is stored byte for byte.
    const ok = await c.post(c.conv(id, '/turns'), {
      parentId: tip,
      messages: [msg('user', [text('see'), image(IMAGE_LIMIT)]), assistant('seen')],
    });
    expect(ok.status).toBe(201);
    const stored = await c.get(c.conv(id, `/messages/${ok.body.messageIds[0]}`));
    expect(stored.body.content[1]).toEqual(image(IMAGE_LIMIT));
  });

  it('rejects unknown block types with 400 and the path, instead of dropping them', async () => {
    const tip = (await c.conversation(id)).tip;
    const r = await commitNothing({
      parentId: tip,
      messages: [
        msg('user', [text('hi'), { type: 'document', source: { type: 'text', data: 'x' } }]),
        msg('assistant', [{ type: 'server_tool_use', id: 'x', name: 'web', input: {} }]),
      ],
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('validation_failed');
    expect(r.body.errors.map((e: { path: string; code: string }) => [e.path, e.code])).toEqual([
      ['body.messages[0].content[1].type', 'unknown_block_type'],
      ['body.messages[1].content[0].type', 'unknown_block_type'],
    ]);
    const inResult = await commitNothing({
      parentId: tip,
      messages: [
        user('go'),
        msg('assistant', [toolUse('r1')]),
        msg('user', [toolResult('r1', [{ type: 'tool_reference', tool_name: 'x' }])]),
        assistant('done'),
      ],
    });
    expect(inResult.status).toBe(400);
    expect(inResult.body.errors[0]).toMatchObject({
      path: 'body.messages[2].content[0].content[0].type',
      code: 'unknown_block_type',
    });
  });

  it('rejects blocks in the wrong role, bad images and malformed blocks with their paths', async () => {
    const tip = (await c.conversation(id)).tip;
    const r = await commitNothing({
      parentId: tip,
      messages: [
        msg('user', [toolUse('u1')]),
        msg('assistant', [
          text(''),
          {
            type: 'image',
            source: { type: 'base64', media_type: 'image/jpeg', data: pngBase64(40) },
          },
        ]),
      ],
    });
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: { path: string; code: string }) => [e.path, e.code])).toEqual([
      ['body.messages[0].content[0].type', 'block_not_allowed'],
      ['body.messages[1].content[0].text', 'empty_text'],
      ['body.messages[1].content[1].type', 'block_not_allowed'],
    ]);
    const img = await commitNothing({
      parentId: tip,
      messages: [
        msg('user', [
          {
            type: 'image',
            source: { type: 'base64', media_type: 'image/jpeg', data: pngBase64(40) },
          },
          {
            type: 'image',
            source: { type: 'base64', media_type: 'image/png', data: 'not base64!' },
          },
          { type: 'image', source: { type: 'ftp', media_type: 'image/png', data: pngBase64(40) } },
        ]),
        assistant('x'),
      ],
    });
    expect(img.status).toBe(400);
    expect(img.body.errors.map((e: { path: string; code: string }) => [e.path, e.code])).toEqual([
      ['body.messages[0].content[0].source.media_type', 'media_type_mismatch'],
      ['body.messages[0].content[1].source.data', 'invalid_base64'],
      ['body.messages[0].content[2].source.type', 'unsupported_source_type'],
    ]);
    const shape = await commitNothing({
      parentId: tip,
      messages: [{ role: 'robot', content: 'hi' }, { role: 'assistant' }],
    });
    expect(shape.status).toBe(400);
    expect(shape.body.errors.map((e: { path: string; code: string }) => [e.path, e.code])).toEqual([
      ['body.messages[0].role', 'invalid_role'],
      ['body.messages[0].content', 'invalid_type'],
      ['body.messages[1].content', 'required'],
    ]);
  });
});

describe('the default image cap is 5 MiB', () => {
  let h: Harness;
  let c: Client;
  beforeAll(async () => {
    h = await startHarness();
    c = clientFor(h, (await h.createTenant('big')).apiKey);
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('413 one byte over, stored at the cap', async () => {
    const id = await c.start();
    const cap = 5 * 1024 * 1024;
    const over = await c.post(c.conv(id, '/turns'), {
      parentId: null,
      messages: [msg('user', [image(cap + 1)]), assistant('x')],
    });
    expect(over.status).toBe(413);
    expect(over.body.code).toBe('payload_too_large');
    expect(over.body.errors[0].path).toBe('body.messages[0].content[0].source.data');
    const at = await c.post(c.conv(id, '/turns'), {
      parentId: null,
      messages: [msg('user', [image(cap)]), assistant('x')],
    });
    expect(at.status).toBe(201);
  });
});
