/**
 * Tiny image payloads for tests: a valid header of each format (1×1 unless said), then filler up
 * to `size` bytes. The header reader (image-header.ts) reads headers only, so these pass it.
 */
import { crc32 } from 'node:zlib';

const pad = (head: Buffer, size: number, fill = 7): Buffer => {
  const buf = Buffer.alloc(Math.max(size, head.length), fill);
  head.copy(buf);
  return buf;
};

/** Signature and IHDR (8-bit truecolour), CRC included. */
export const pngHeader = (width = 1, height = 1): Buffer => {
  const ihdr = Buffer.alloc(17);
  ihdr.write('IHDR', 0, 'latin1');
  ihdr.writeUInt32BE(width, 4);
  ihdr.writeUInt32BE(height, 8);
  ihdr[12] = 8; // bit depth
  ihdr[13] = 2; // colour type: truecolour
  const length = Buffer.alloc(4);
  length.writeUInt32BE(13);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(ihdr));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    length,
    ihdr,
    crc,
  ]);
};

/** SOI, then a baseline start-of-frame (8-bit, 3 components). */
export const jpegHeader = (width = 1, height = 1): Buffer => {
  const sof = Buffer.from([
    0xff, 0xc0, 0, 17, 8, 0, 0, 0, 0, 3, 1, 0x11, 0, 2, 0x11, 1, 3, 0x11, 1,
  ]);
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), sof]);
};

/** Signature and logical screen descriptor. */
export const gifHeader = (width = 1, height = 1): Buffer => {
  const b = Buffer.alloc(13);
  b.write('GIF89a', 0, 'latin1');
  b.writeUInt16LE(width, 6);
  b.writeUInt16LE(height, 8);
  return b;
};

/** RIFF/WEBP with a VP8X chunk; the RIFF length is set for a file of `size` bytes. */
const webpBytes = (size: number, width = 1, height = 1): Buffer => {
  const b = pad(Buffer.alloc(30), size, 0);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(b.length - 8, 4);
  b.write('WEBPVP8X', 8, 'latin1');
  b.writeUInt32LE(10, 16);
  b.writeUIntLE(width - 1, 24, 3);
  b.writeUIntLE(height - 1, 27, 3);
  return b;
};

export const pngBase64 = (size = 64): string => pad(pngHeader(), size).toString('base64');
export const jpegBase64 = (size = 64): string => pad(jpegHeader(), size).toString('base64');
export const gifBase64 = (size = 64): string => pad(gifHeader(), size).toString('base64');
export const webpBase64 = (size = 64): string => webpBytes(size).toString('base64');
