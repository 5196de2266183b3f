/**
 * Image dimensions read from the header bytes of base64 image data, without decoding pixels.
 * The format is told by its magic bytes, not by the declared media type (which can be wrong).
 */

export interface ImageSize {
  width: number;
  height: number;
}

/** How many bytes base64 text decodes to (no whitespace expected). */
export function base64ByteLength(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

/** Decodes the first `bytes` bytes (at least) of base64 text. */
function decodePrefix(base64: string, bytes: number): Buffer {
  const chars = Math.ceil(bytes / 3) * 4;
  return Buffer.from(base64.slice(0, chars), 'base64');
}

const u16be = (b: Uint8Array, i: number) => (b[i] << 8) | b[i + 1];
const u16le = (b: Uint8Array, i: number) => b[i] | (b[i + 1] << 8);
const u24le = (b: Uint8Array, i: number) => b[i] | (b[i + 1] << 8) | (b[i + 2] << 16);
const u32be = (b: Uint8Array, i: number) =>
  ((b[i] << 24) | (b[i + 1] << 16) | u16be(b, i + 2)) >>> 0;
const ascii = (b: Uint8Array, i: number, n: number) => String.fromCharCode(...b.subarray(i, i + n));

function valid(width: number, height: number): ImageSize | null {
  return width > 0 && height > 0 ? { width, height } : null;
}

/** PNG: the IHDR chunk comes first; width and height are its first two 32-bit fields. */
export function pngSize(b: Uint8Array): ImageSize | null {
  if (b.length < 24 || u32be(b, 0) !== 0x89504e47 || ascii(b, 12, 4) !== 'IHDR') return null;
  return valid(u32be(b, 16), u32be(b, 20));
}

/** GIF: logical screen width and height, little-endian, after the 6-byte signature. */
export function gifSize(b: Uint8Array): ImageSize | null {
  if (b.length < 10 || !/^GIF8[79]a$/.test(ascii(b, 0, 6))) return null;
  return valid(u16le(b, 6), u16le(b, 8));
}

/** WebP: a RIFF container whose first chunk is VP8 (lossy), VP8L (lossless) or VP8X (extended). */
export function webpSize(b: Uint8Array): ImageSize | null {
  if (b.length < 30 || ascii(b, 0, 4) !== 'RIFF' || ascii(b, 8, 4) !== 'WEBP') return null;
  const chunk = ascii(b, 12, 4);
  if (chunk === 'VP8 ') {
    // Frame tag (3 bytes) then start code 9d 01 2a, then 14-bit width and height.
    if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return null;
    return valid(u16le(b, 26) & 0x3fff, u16le(b, 28) & 0x3fff);
  }
  if (chunk === 'VP8L') {
    // Signature 0x2f, then width-1 and height-1 packed as two 14-bit fields.
    if (b[20] !== 0x2f) return null;
    const width = 1 + (((b[22] & 0x3f) << 8) | b[21]);
    const height = 1 + (((b[24] & 0x0f) << 10) | (b[23] << 2) | ((b[22] & 0xc0) >> 6));
    return valid(width, height);
  }
  if (chunk === 'VP8X') return valid(1 + u24le(b, 24), 1 + u24le(b, 27));
  return null;
}

const NEED_MORE = 'need-more';

/** Start-of-frame markers carry the size; C4 (DHT), C8 (JPG) and CC (DAC) share the range. */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/** JPEG: walks the marker segments up to the first start-of-frame. */
export function jpegSize(b: Uint8Array): ImageSize | null | typeof NEED_MORE {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return null;
  let i = 2;
  while (i + 1 < b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1];
    if (marker === 0xff) {
      i += 1; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      i += 2; // standalone marker, no length
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null; // end of image / start of scan
    if (i + 9 > b.length) return NEED_MORE;
    if (isStartOfFrame(marker)) return valid(u16be(b, i + 7), u16be(b, i + 5));
    i += 2 + u16be(b, i + 2);
  }
  return NEED_MORE;
}

export function imageSizeFromBytes(bytes: Uint8Array): ImageSize | null {
  const jpeg = jpegSize(bytes);
  if (jpeg !== null) return jpeg === NEED_MORE ? null : jpeg;
  return pngSize(bytes) ?? gifSize(bytes) ?? webpSize(bytes);
}

/** Enough bytes for the PNG, GIF and WebP headers and for most JPEGs. */
const HEADER_BYTES = 64;
/** JPEG headers (EXIF, ICC profiles) can be long: a second look at 64 KiB, then the whole file. */
const JPEG_LOOK_BYTES = 64 * 1024;

/** Width and height of a PNG, JPEG, GIF or WebP given as base64, or null when unreadable. */
export function readImageSize(base64: string): ImageSize | null {
  const looks = [
    () => decodePrefix(base64, HEADER_BYTES),
    () => decodePrefix(base64, JPEG_LOOK_BYTES),
    () => Buffer.from(base64, 'base64'),
  ];
  for (const look of looks) {
    const bytes = look();
    const jpeg = jpegSize(bytes);
    if (jpeg === null) return pngSize(bytes) ?? gifSize(bytes) ?? webpSize(bytes);
    if (jpeg !== NEED_MORE) return jpeg;
  }
  return null;
}
