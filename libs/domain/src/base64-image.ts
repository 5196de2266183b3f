/** Strict base64 and image sniffing for image blocks. Pure; decodes only the first bytes. */

export type ImageMediaType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

export const IMAGE_MEDIA_TYPES: readonly ImageMediaType[] = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
];

export const DEFAULT_MAX_IMAGE_BYTES = 5 * 1024 * 1024;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const STRICT_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export type Base64Problem = 'empty' | 'alphabet' | 'length' | 'padding';

/**
 * Canonical standard base64 (RFC 4648 §4): alphabet A–Z a–z 0–9 + /, length a multiple of 4,
 * at most two `=` at the end, and zero unused bits before the padding (so exactly one string
 * encodes each byte sequence). No whitespace, no URL-safe alphabet.
 */
export const checkBase64 = (data: string): Base64Problem | null => {
  if (data.length === 0) return 'empty';
  if (!STRICT_BASE64.test(data)) return 'alphabet';
  if (data.length % 4 !== 0) return 'length';
  const pad = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  if (pad === 0) return null;
  const last = ALPHABET.indexOf(data[data.length - pad - 1]);
  const unusedBits = pad === 2 ? 0b1111 : 0b11;
  return (last & unusedBits) === 0 ? null : 'padding';
};

/** Decoded size in bytes of valid base64, computed without decoding. */
export const decodedLength = (data: string): number => {
  const pad = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return (data.length / 4) * 3 - pad;
};

const startsWith = (bytes: Uint8Array, prefix: readonly number[], offset = 0): boolean =>
  prefix.every((b, i) => bytes[offset + i] === b);

const ascii = (text: string): number[] => Array.from(text, (c) => c.charCodeAt(0));

/** The media type the magic bytes say, or null when the data is none of the four. */
export const sniffImageType = (bytes: Uint8Array): ImageMediaType | null => {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'image/webp';
  return null;
};

/** The first bytes of valid base64 data (16 chars → 12 bytes, enough for every signature). */
export const headBytes = (data: string): Uint8Array =>
  new Uint8Array(Buffer.from(data.slice(0, 16), 'base64'));
