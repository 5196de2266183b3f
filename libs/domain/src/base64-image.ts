/** Strict base64 for image blocks (their headers are read by image-header.ts). Pure. */

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

/** Canonical base64 (RFC 4648 §4), zero unused bits: one string per byte sequence. */
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

export const decodedLength = (data: string): number => {
  const pad = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return (data.length / 4) * 3 - pad;
};
