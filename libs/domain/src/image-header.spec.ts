import { readImageHeader, readImageHeaderBase64, MAX_IMAGE_SIDE } from './image-header';
import { gifHeader, jpegHeader, pngHeader, webpBase64 } from './testing/images';

const problemOf = (bytes: Buffer) => {
  const r = readImageHeader(bytes);
  return 'problem' in r ? r.problem : 'ok';
};

describe('readImageHeader', () => {
  it('reads the format and size of valid headers', () => {
    expect(readImageHeader(pngHeader(9000, 10))).toEqual({
      mediaType: 'image/png',
      width: 9000,
      height: 10,
    });
    expect(readImageHeader(jpegHeader(37, 23))).toMatchObject({ width: 37, height: 23 });
    expect(readImageHeader(gifHeader(5, 6))).toMatchObject({ mediaType: 'image/gif', width: 5 });
    expect(readImageHeaderBase64(webpBase64(64))).toMatchObject({ mediaType: 'image/webp' });
  });

  // The inputs the issue found stored: each is refused now, with why.
  it.each([
    ['a bare PNG signature', pngHeader().subarray(0, 8), 'invalid_header'],
    ['a PNG claiming 0×0', pngHeader(0, 0), 'dimensions'],
    ['a PNG claiming 4294967295²', pngHeader(4294967295, 4294967295), 'dimensions'],
    [
      'a PNG whose IHDR CRC is wrong',
      Buffer.concat([pngHeader().subarray(0, 32), Buffer.from([0])]),
      'invalid_header',
    ],
    ['GIF89a alone', Buffer.from('GIF89a'), 'invalid_header'],
    ['a GIF of 0×0', gifHeader(0, 0), 'dimensions'],
    [
      'a truncated WebP header',
      Buffer.from(webpBase64(64), 'base64').subarray(0, 20),
      'invalid_header',
    ],
    [
      'FFD8 + 300 KB of FF',
      Buffer.concat([Buffer.from([0xff, 0xd8]), Buffer.alloc(300_000, 0xff)]),
      'invalid_header',
    ],
    ['a JPEG of 0×0', jpegHeader(0, 0), 'dimensions'],
    [
      'a JPEG segment running past the data',
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0xff, 0xff]),
      'invalid_header',
    ],
    ['text', Buffer.from('hello, world'), 'unknown_format'],
  ])('%s', (_name, bytes, problem) => {
    expect(problemOf(bytes)).toBe(problem);
  });

  it('bounds each side to MAX_IMAGE_SIDE', () => {
    expect(problemOf(pngHeader(MAX_IMAGE_SIDE, 1))).toBe('ok');
    expect(problemOf(pngHeader(MAX_IMAGE_SIDE + 1, 1))).toBe('dimensions');
  });

  it('finds a JPEG frame header after 100 KB of metadata (reading more of the base64)', () => {
    const app1 = Buffer.alloc(4 + 65_000);
    app1.writeUInt16BE(0xffe1, 0);
    app1.writeUInt16BE(65_002 - 2 + 2, 2);
    const sof = jpegHeader(640, 480).subarray(2);
    const data = Buffer.concat([
      Buffer.from([0xff, 0xd8]),
      app1.subarray(0, 4 + 65_000),
      app1.subarray(0, 4 + 65_000),
      sof,
    ]);
    // two APP1 segments of 65,002 bytes each, then the frame header
    data.writeUInt16BE(65_002, 4);
    data.writeUInt16BE(65_002, 4 + 65_004);
    expect(readImageHeaderBase64(data.toString('base64'))).toMatchObject({
      width: 640,
      height: 480,
    });
  });
});
