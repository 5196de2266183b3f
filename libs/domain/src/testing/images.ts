/** Tiny image payloads for tests: real magic bytes followed by filler. */
const bytes = (head: number[], size: number): Buffer => {
  const buf = Buffer.alloc(Math.max(size, head.length), 7);
  Buffer.from(head).copy(buf);
  return buf;
};

const ascii = (s: string): number[] => Array.from(s, (c) => c.charCodeAt(0));

export const PNG_HEAD = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
export const JPEG_HEAD = [0xff, 0xd8, 0xff, 0xe0];
export const GIF_HEAD = ascii('GIF89a');
export const WEBP_HEAD = [...ascii('RIFF'), 1, 2, 3, 4, ...ascii('WEBP')];

export const pngBase64 = (size = 32): string => bytes(PNG_HEAD, size).toString('base64');
export const jpegBase64 = (size = 32): string => bytes(JPEG_HEAD, size).toString('base64');
export const gifBase64 = (size = 32): string => bytes(GIF_HEAD, size).toString('base64');
export const webpBase64 = (size = 32): string => bytes(WEBP_HEAD, size).toString('base64');
