import * as fs from 'node:fs';
import * as path from 'node:path';
import { REAL_CLAUDE_CODE } from '@arbor/fixtures';
import { base64ByteLength, imageSizeFromBytes, readImageSize } from './image-size';
import { REAL_IMAGES, makePng, makePngBase64 } from '../testing/images';

const FIXTURES = REAL_CLAUDE_CODE;

/** Every base64 image block (`"media_type":"image/…","data":"…"`) in a real transcript. */
function transcriptImages(fileFragment: string): string[] {
  const dir = fs.readdirSync(FIXTURES);
  const file = dir.find((f) => f.includes(fileFragment));
  if (!file) return [];
  const raw = fs.readFileSync(path.join(FIXTURES, file), 'utf8');
  return [...raw.matchAll(/"media_type":"image\/png","data":"([A-Za-z0-9+/=]+)"/g)].map(
    (m) => m[1],
  );
}

describe('readImageSize', () => {
  it.each([
    [1, 1],
    [37, 23],
    [640, 480],
    [3, 2000],
  ])('reads a %ix%i PNG built with zlib', (width, height) => {
    expect(readImageSize(makePngBase64(width, height))).toEqual({ width, height });
  });

  it.each(Object.entries(REAL_IMAGES))('reads %s made by ImageMagick', (_name, image) => {
    expect(readImageSize(image.base64)).toEqual({ width: image.width, height: image.height });
  });

  it('reads the size of a JPEG whose headers run past the first 64 KiB', () => {
    const jpeg = Buffer.from(REAL_IMAGES.jpegBaseline.base64, 'base64');
    const comment = (n: number) => {
      const segment = Buffer.alloc(4 + n, 0x41);
      segment.writeUInt16BE(0xfffe, 0);
      segment.writeUInt16BE(n + 2, 2);
      return segment;
    };
    const padded = Buffer.concat([
      jpeg.subarray(0, 2),
      comment(60000),
      comment(60000),
      jpeg.subarray(2),
    ]);
    expect(padded.length).toBeGreaterThan(120000);
    expect(readImageSize(padded.toString('base64'))).toEqual({ width: 37, height: 23 });
  });

  it('reads the real screenshots of the Claude Code transcripts', () => {
    const images = [...transcriptImages('0d3a8e6f'), ...transcriptImages('9e953218')];
    expect(images.length).toBeGreaterThanOrEqual(2);
    const sizes = images.map(readImageSize);
    // Each equals the IHDR fields as decoded independently here.
    for (const [i, data] of images.entries()) {
      const bytes = Buffer.from(data, 'base64');
      expect(sizes[i]).toEqual({ width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) });
    }
    expect(sizes).toContainEqual({ width: 2000, height: 1008 });
    expect(sizes).toContainEqual({ width: 1002, height: 606 });
  });

  it('returns null for data that is not an image or is cut short', () => {
    expect(readImageSize(Buffer.from('hello world, not an image').toString('base64'))).toBeNull();
    expect(readImageSize('')).toBeNull();
    expect(readImageSize(makePng(5, 5).subarray(0, 20).toString('base64'))).toBeNull();
    const jpegHead = Buffer.from(REAL_IMAGES.jpegBaseline.base64, 'base64').subarray(0, 30);
    expect(imageSizeFromBytes(jpegHead)).toBeNull();
  });
});

describe('base64ByteLength', () => {
  it('matches the decoded length for every padding', () => {
    for (const n of [0, 1, 2, 3, 4, 5, 100]) {
      const bytes = Buffer.alloc(n, 7);
      expect(base64ByteLength(bytes.toString('base64'))).toBe(n);
    }
  });
});
