// Hand-written, not `image-size`: validation needs the CRC, RIFF length and JPEG frame checks
// that library skips (the checks: README.md).
import type { ImageMediaType } from './base64-image';

/** Largest width or height accepted: what JPEG and GIF can state (16 bits); more is refused. */
export const MAX_IMAGE_SIDE = 65_535;

export interface ImageHeader {
  readonly mediaType: ImageMediaType;
  readonly width: number;
  readonly height: number;
}

export type ImageHeaderProblem =
  | { readonly problem: 'unknown_format'; readonly detail: string }
  | { readonly problem: 'invalid_header'; readonly detail: string }
  | { readonly problem: 'dimensions'; readonly detail: string }
  | { readonly problem: 'need_more'; readonly detail: string };

export type ImageHeaderResult = ImageHeader | ImageHeaderProblem;

export const isImageHeader = (r: ImageHeaderResult): r is ImageHeader => 'width' in r;

const u16be = (b: Uint8Array, i: number) => (b[i] << 8) | b[i + 1];
const u16le = (b: Uint8Array, i: number) => b[i] | (b[i + 1] << 8);
const u24le = (b: Uint8Array, i: number) => b[i] | (b[i + 1] << 8) | (b[i + 2] << 16);
const u32be = (b: Uint8Array, i: number) =>
  ((b[i] << 24) | (b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]) >>> 0;
const u32le = (b: Uint8Array, i: number) =>
  (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)) >>> 0;
const ascii = (b: Uint8Array, i: number, n: number) =>
  String.fromCharCode(...b.subarray(i, Math.min(b.length, i + n)));

const invalid = (detail: string): ImageHeaderProblem => ({ problem: 'invalid_header', detail });

function sized(
  mediaType: ImageMediaType,
  width: number,
  height: number,
): ImageHeader | ImageHeaderProblem {
  if (width < 1 || height < 1 || width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE) {
    return {
      problem: 'dimensions',
      detail: `${mediaType} says ${width}×${height} px; each side must be 1 to ${MAX_IMAGE_SIDE}`,
    };
  }
  return { mediaType, width, height };
}

let crcTable: Uint32Array | undefined;
function crc32(bytes: Uint8Array): number {
  if (crcTable === undefined) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (const b of bytes) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const PNG_DEPTHS: Record<number, readonly number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};

function png(b: Uint8Array): ImageHeaderResult {
  if (b.length < 33) return invalid('PNG shorter than its signature and IHDR chunk');
  if (u32be(b, 8) !== 13 || ascii(b, 12, 4) !== 'IHDR') {
    return invalid('PNG does not start with a 13-byte IHDR chunk');
  }
  if (crc32(b.subarray(12, 29)) !== u32be(b, 29)) return invalid('PNG IHDR CRC does not match');
  const depth = b[24];
  const colour = b[25];
  if (!(PNG_DEPTHS[colour] ?? []).includes(depth)) {
    return invalid(`PNG bit depth ${depth} with colour type ${colour} is not allowed`);
  }
  if (b[26] !== 0 || b[27] !== 0 || b[28] > 1) {
    return invalid('PNG compression, filter or interlace method unknown');
  }
  return sized('image/png', u32be(b, 16), u32be(b, 20));
}

function gif(b: Uint8Array): ImageHeaderResult {
  if (b.length < 13) return invalid('GIF shorter than its logical screen descriptor');
  return sized('image/gif', u16le(b, 6), u16le(b, 8));
}

function webp(b: Uint8Array): ImageHeaderResult {
  if (b.length < 30) return invalid('WebP shorter than its RIFF and first chunk headers');
  const riffLength = u32le(b, 4);
  const chunk = ascii(b, 12, 4);
  const chunkLength = u32le(b, 16);
  if (riffLength < 4 + 8 + chunkLength) {
    return invalid('WebP RIFF length does not cover its first chunk');
  }
  if (chunk === 'VP8 ') {
    if (chunkLength < 10) return invalid('WebP VP8 chunk too short');
    if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) {
      return invalid('WebP VP8 frame has no start code');
    }
    if ((b[20] & 1) !== 0) return invalid('WebP VP8 first frame is not a key frame');
    return sized('image/webp', u16le(b, 26) & 0x3fff, u16le(b, 28) & 0x3fff);
  }
  if (chunk === 'VP8L') {
    if (chunkLength < 5) return invalid('WebP VP8L chunk too short');
    if (b[20] !== 0x2f) return invalid('WebP VP8L signature byte missing');
    if (b[24] >> 5 !== 0) return invalid('WebP VP8L version is not 0');
    const width = 1 + (((b[22] & 0x3f) << 8) | b[21]);
    const height = 1 + (((b[24] & 0x0f) << 10) | (b[23] << 2) | ((b[22] & 0xc0) >> 6));
    return sized('image/webp', width, height);
  }
  if (chunk === 'VP8X') {
    if (chunkLength < 10) return invalid('WebP VP8X chunk too short');
    return sized('image/webp', 1 + u24le(b, 24), 1 + u24le(b, 27));
  }
  return invalid(`WebP first chunk ${JSON.stringify(chunk)} is none of VP8, VP8L, VP8X`);
}

/** Start-of-frame markers carry the size; C4 (DHT), C8 (JPG) and CC (DAC) share the range. */
const isStartOfFrame = (marker: number): boolean =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

function jpeg(b: Uint8Array, complete: boolean): ImageHeaderResult {
  let i = 2;
  const more = (): ImageHeaderResult =>
    complete
      ? invalid('JPEG ends before a frame header (SOF)')
      : { problem: 'need_more', detail: 'JPEG frame header beyond the bytes read' };
  while (i + 1 < b.length) {
    if (b[i] !== 0xff) return invalid(`JPEG has no marker at byte ${i}`);
    const marker = b[i + 1];
    if (marker === 0xff) {
      i += 1; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      i += 2; // standalone marker, no length
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) {
      return invalid('JPEG reaches its end or image data before a frame header (SOF)');
    }
    if (i + 4 > b.length) return more();
    const length = u16be(b, i + 2);
    if (length < 2) return invalid(`JPEG segment at byte ${i} has length ${length}`);
    if (isStartOfFrame(marker)) {
      if (i + 2 + length > b.length) return more();
      const components = b[i + 9];
      if (length < 8 || components < 1 || length !== 8 + 3 * components) {
        return invalid('JPEG frame header length does not match its components');
      }
      if (![8, 12, 16].includes(b[i + 4])) return invalid('JPEG sample precision unknown');
      return sized('image/jpeg', u16be(b, i + 7), u16be(b, i + 5));
    }
    i += 2 + length;
  }
  return more();
}

const startsWith = (b: Uint8Array, prefix: readonly number[]) =>
  b.length >= prefix.length && prefix.every((x, i) => b[i] === x);

export function readImageHeader(bytes: Uint8Array, complete = true): ImageHeaderResult {
  if (startsWith(bytes, PNG_SIGNATURE)) return png(bytes);
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return jpeg(bytes, complete);
  const head = ascii(bytes, 0, 6);
  if (head === 'GIF87a' || head === 'GIF89a') return gif(bytes);
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP') return webp(bytes);
  return { problem: 'unknown_format', detail: 'data is not a PNG, JPEG, GIF or WebP image' };
}

const decodePrefix = (base64: string, bytes: number): Buffer =>
  Buffer.from(base64.slice(0, Math.ceil(bytes / 3) * 4), 'base64');

/** Enough for PNG, GIF and WebP headers and most JPEGs; JPEG metadata can push SOF further. */
const LOOKS = [64, 64 * 1024];

export function readImageHeaderBase64(base64: string): ImageHeaderResult {
  for (const n of LOOKS) {
    const complete = Math.ceil(n / 3) * 4 >= base64.length;
    const r = readImageHeader(decodePrefix(base64, n), complete);
    if (isImageHeader(r) || r.problem !== 'need_more' || complete) return r;
  }
  return readImageHeader(Buffer.from(base64, 'base64'), true);
}
