/** Same name, same id: a retried command decides the ids it decided the first time. */
import { createHash } from 'node:crypto';

/** Parts are joined as JSON, so `['a', 'bc']` and `['ab', 'c']` differ. */
export const stableId = (name: readonly string[]): string => {
  const h = createHash('sha256').update(JSON.stringify(name)).digest();
  h[6] = (h[6] & 0x0f) | 0x80;
  h[8] = (h[8] & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};
