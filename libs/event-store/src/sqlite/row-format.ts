/** How an event's metadata sits in a row, by the row's `format` (README: The SQLite adapter). */
import { InvalidEventError } from '../errors';
import { jsonTextOf } from '../event-rules';
import { type EventMetadata } from '../types';

export const ROW_FORMAT = 2;

/** Metadata key codes: a code is the index here, never reorder. */
const METADATA_KEYS = ['tenantId', 'actor', 'timestamp', 'correlationId', 'causationId'] as const;
const CODE = new Map<string, number>(METADATA_KEYS.map((k, i) => [k, i]));
const SAME_CAUSATION = METADATA_KEYS.length;

const HEX_HASH = /^[0-9a-f]{64}$/;

export interface StoredMetadata {
  format: number;
  metadata: string;
  chainPrev: Buffer | null;
  chainHash: Buffer | null;
}

const linkOf = (value: unknown): { prev: Buffer | null; hash: Buffer } | null => {
  if (
    typeof value !== 'object' ||
    value === null ||
    Object.getPrototypeOf(value) !== Object.prototype
  ) {
    return null;
  }
  const link = value as Record<string, unknown>;
  const keys = Object.keys(link);
  if (keys.length !== 3 || keys[0] !== 'v' || keys[1] !== 'prev' || keys[2] !== 'hash') return null;
  if (link.v !== 1 || typeof link.hash !== 'string' || !HEX_HASH.test(link.hash)) return null;
  if (link.prev !== null && (typeof link.prev !== 'string' || !HEX_HASH.test(link.prev))) {
    return null;
  }
  return {
    prev: link.prev === null ? null : Buffer.from(link.prev, 'hex'),
    hash: Buffer.from(link.hash, 'hex'),
  };
};

export const encodeMetadata = (metadata: object, index: number): StoredMetadata => {
  const proto = Object.getPrototypeOf(metadata) as unknown;
  const record = metadata as Record<string, unknown>;
  if ((proto !== Object.prototype && proto !== null) || record.toJSON !== undefined) {
    // Unusual objects keep the plain JSON form, serialized exactly as JSON.stringify does.
    const text = jsonTextOf(metadata, 'metadata', index);
    return { format: 1, metadata: text, chainPrev: null, chainHash: null };
  }
  const keys = Object.keys(record);
  let end = keys.length;
  const link = keys[end - 1] === 'chain' ? linkOf(record.chain) : null;
  if (link !== null) end -= 1;
  let out = '[';
  let correlation: unknown = undefined;
  for (let i = 0; i < end; i++) {
    const key = keys[i];
    const value = jsonTextOfValue(record[key], key, index);
    if (value === undefined) continue;
    if (out.length > 1) out += ',';
    if (key === 'correlationId') correlation = record[key];
    if (key === 'causationId' && typeof correlation === 'string' && record[key] === correlation) {
      out += `${SAME_CAUSATION},0`;
      continue;
    }
    const code = CODE.get(key);
    out += `${code === undefined ? JSON.stringify(key) : code},${value}`;
  }
  out += ']';
  return { format: 2, metadata: out, chainPrev: link?.prev ?? null, chainHash: link?.hash ?? null };
};

const jsonTextOfValue = (value: unknown, key: string, index: number): string | undefined => {
  try {
    return JSON.stringify(value) as string | undefined;
  } catch (error) {
    throw new InvalidEventError(`event ${index}: metadata.${key} is not JSON (${String(error)})`);
  }
};

const setKey = (out: Record<string, unknown>, key: string, value: unknown): void => {
  // `__proto__` is an own key in parsed JSON; a plain assignment would set the prototype.
  if (key === '__proto__') {
    Object.defineProperty(out, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else out[key] = value;
};

/** The metadata of a row, as it was appended. */
export const decodeMetadata = (
  format: number | bigint,
  text: string,
  chainPrev: Buffer | null,
  chainHash: Buffer | null,
): EventMetadata => {
  if (Number(format) === 1) return JSON.parse(text) as EventMetadata;
  if (Number(format) !== 2) throw new Error(`event row format ${format} is unknown to this build`);
  const pairs = JSON.parse(text) as unknown[];
  const out: Record<string, unknown> = {};
  for (let i = 0; i < pairs.length; i += 2) {
    const key = pairs[i];
    if (key === SAME_CAUSATION) {
      out.causationId = out.correlationId;
      continue;
    }
    const name = typeof key === 'number' ? METADATA_KEYS[key] : key;
    if (typeof name !== 'string')
      throw new Error(`event row: metadata key ${String(key)} is unknown`);
    setKey(out, name, pairs[i + 1]);
  }
  if (chainHash !== null) {
    out.chain = {
      v: 1,
      prev: chainPrev === null ? null : chainPrev.toString('hex'),
      hash: chainHash.toString('hex'),
    };
  }
  return out as EventMetadata;
};
