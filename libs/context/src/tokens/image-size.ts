/**
 * Image dimensions of base64 image data, read by the code base's one header reader
 * (`readImageHeader` of @arbor/domain, which also checks the header is sound), without decoding
 * pixels. The format is told by its magic bytes, not by the declared media type.
 */
import { isImageHeader, readImageHeader, readImageHeaderBase64 } from '@arbor/domain/image-header';

export interface ImageSize {
  width: number;
  height: number;
}

/** How many bytes base64 text decodes to (no whitespace expected). */
export function base64ByteLength(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

const sizeOf = (r: ReturnType<typeof readImageHeader>): ImageSize | null =>
  isImageHeader(r) ? { width: r.width, height: r.height } : null;

/** Width and height of the whole image in `bytes`, or null when its header is unreadable. */
export function imageSizeFromBytes(bytes: Uint8Array): ImageSize | null {
  return sizeOf(readImageHeader(bytes));
}

/** Width and height of a PNG, JPEG, GIF or WebP given as base64, or null when unreadable. */
export function readImageSize(base64: string): ImageSize | null {
  return sizeOf(readImageHeaderBase64(base64));
}
