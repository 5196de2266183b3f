import { gifHeader, jpegHeader, pngHeader, webpBase64 } from '@arbor/domain/testing/images';
import { clientFor, type Client, msg, text } from './support/api';
import { type Harness, startHarness } from './support/harness';

const image = (data: string, mediaType = 'image/png') => ({
  type: 'image',
  source: { type: 'base64', media_type: mediaType, data },
});
const b64 = (bytes: Buffer) => bytes.toString('base64');

/**
 * Issue: images were checked by their first bytes only — a bare PNG signature, a PNG claiming
 * 0×0 or 4294967295², `GIF89a` alone, a truncated WebP header, `FFD8` + 300 KB of `FF` were all
 * stored. Each is now refused naming the block's data (400 validation_failed, as every other
 * malformed block of a turn), and nothing is appended.
 */
describe('image headers are decoded and checked at write (POST .../turns)', () => {
  let h: Harness;
  let c: Client;
  beforeAll(async () => {
    h = await startHarness();
    c = clientFor(h, (await h.createTenant('images')).apiKey);
  });
  afterAll(async () => {
    await h.destroy();
  });

  it.each([
    ['a bare PNG signature', b64(pngHeader().subarray(0, 8)), 'image/png', 'invalid_image'],
    ['a PNG claiming 0×0', b64(pngHeader(0, 0)), 'image/png', 'image_dimensions'],
    [
      'a PNG claiming 4294967295²',
      b64(pngHeader(4294967295, 4294967295)),
      'image/png',
      'image_dimensions',
    ],
    ['GIF89a alone', b64(Buffer.from('GIF89a')), 'image/gif', 'invalid_image'],
    [
      'a truncated WebP header',
      b64(Buffer.from(webpBase64(64), 'base64').subarray(0, 24)),
      'image/webp',
      'invalid_image',
    ],
    [
      'FFD8 + 300 KB of FF',
      b64(Buffer.concat([Buffer.from([0xff, 0xd8]), Buffer.alloc(300_000, 0xff)])),
      'image/jpeg',
      'invalid_image',
    ],
    ['a GIF declared as PNG', b64(gifHeader(2, 2)), 'image/png', 'media_type_mismatch'],
  ])('%s: refused with the path, nothing stored', async (_name, data, mediaType, code) => {
    const id = await c.start();
    const before = await c.events(id);
    const r = await c.post(c.conv(id, '/turns'), {
      messages: [
        msg('user', [text('look'), image(data, mediaType)]),
        msg('assistant', [text('ok')]),
      ],
    });
    expect([r.status, r.body.code]).toEqual([400, 'validation_failed']);
    const errors = r.body.errors as { path: string; code: string }[];
    expect(errors.map((e) => e.code)).toEqual([code]);
    expect(errors[0].path).toMatch(
      /^body\.messages\[0\]\.content\[1\]\.source\.(data|media_type)$/,
    );
    expect(await c.events(id)).toEqual(before);
  });

  it('valid headers of every format are stored', async () => {
    const id = await c.start();
    const r = await c.post(c.conv(id, '/turns'), {
      messages: [
        msg('user', [
          image(b64(pngHeader(3, 2))),
          image(b64(jpegHeader(4, 5)), 'image/jpeg'),
          image(b64(gifHeader(6, 7)), 'image/gif'),
          image(webpBase64(64), 'image/webp'),
        ]),
        msg('assistant', [text('ok')]),
      ],
    });
    expect(r.status).toBe(201);
  });
});
