/**
 * Pixel size of a base64 PNG, GIF, JPEG or WebP, by the code base's one header reader
 * (`readImageHeader` of @arbor/domain). Never decodes pixels; an unreadable image gives null
 * (the serializer then writes `?x?`).
 */
import { isImageHeader, readImageHeaderBase64 } from '@arbor/domain/image-header';
import type { Size } from './shapes';

export function readImageSize(base64: string): Size | null {
  const r = readImageHeaderBase64(base64);
  return isImageHeader(r) ? { width: r.width, height: r.height } : null;
}
