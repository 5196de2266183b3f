/** Never decodes pixels; an unreadable image gives null. */
import { isImageHeader, readImageHeaderBase64 } from '@arbor/domain/image-header';
import type { Size } from './shapes';

export function readImageSize(base64: string): Size | null {
  const r = readImageHeaderBase64(base64);
  return isImageHeader(r) ? { width: r.width, height: r.height } : null;
}
