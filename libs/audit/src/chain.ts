/** HMAC-SHA256 of the fields and the previous hash: no link verifies without the secret. */
import { createHmac } from 'node:crypto';
import { canonicalJson } from '@arbor/domain/fingerprint';
import { type EventMetadata } from '@arbor/event-store';
import { jsonTextOf } from '@arbor/event-store/event-rules';

export const CHAIN_VERSION = 1;

export interface ChainLink {
  v: typeof CHAIN_VERSION;
  prev: string | null;
  hash: string;
}

export interface ChainFields {
  streamName: string;
  revision: bigint;
  eventId: string;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  prev: string | null;
}

const HASH = /^[0-9a-f]{64}$/;

/** Canonical JSON (sorted keys), revision as a decimal string; `v` inside, so formats never mix. */
export const chainInput = (fields: ChainFields): string =>
  canonicalJson({
    v: CHAIN_VERSION,
    stream: fields.streamName,
    revision: fields.revision.toString(),
    id: fields.eventId,
    type: fields.type,
    data: fields.data,
    metadata: fields.metadata,
    prev: fields.prev,
  });

export const chainHash = (secret: Buffer, fields: ChainFields): string =>
  createHmac('sha256', secret).update(chainInput(fields)).digest('hex');

/** `at(r)` equals `chainHash(secret, { ...fields, revision: r })`; canonical data computed once. */
export const chainHasher = (secret: Buffer, fields: Omit<ChainFields, 'revision'>) => {
  const json = (value: unknown) => JSON.stringify(value);
  // canonicalJson sorts keys: data, id, metadata, prev, revision, stream, type, v.
  const head =
    `{"data":${canonicalJson(fields.data)},"id":${json(fields.eventId)}` +
    `,"metadata":${canonicalJson(fields.metadata)},"prev":${json(fields.prev)},"revision":`;
  const tail = `,"stream":${json(fields.streamName)},"type":${json(fields.type)},"v":${CHAIN_VERSION}}`;
  return (revision: bigint): string =>
    createHmac('sha256', secret)
      .update(head + json(revision.toString()) + tail)
      .digest('hex');
};

export const withoutChain = (metadata: EventMetadata): Record<string, unknown> => {
  const { chain: _chain, ...rest } = metadata;
  return rest;
};

export type ChainState =
  { kind: 'absent' } | { kind: 'malformed' } | { kind: 'link'; link: ChainLink };

/** Reads `metadata.chain` as stored: absent (written before the chain existed), malformed, or a link. */
export const readChain = (metadata: unknown): ChainState => {
  if (typeof metadata !== 'object' || metadata === null) return { kind: 'absent' };
  const chain = (metadata as Record<string, unknown>).chain;
  if (chain === undefined) return { kind: 'absent' };
  if (typeof chain !== 'object' || chain === null) return { kind: 'malformed' };
  const { v, prev, hash } = chain as Record<string, unknown>;
  if (v !== CHAIN_VERSION || typeof hash !== 'string' || !HASH.test(hash)) {
    return { kind: 'malformed' };
  }
  if (prev !== null && (typeof prev !== 'string' || !HASH.test(prev))) return { kind: 'malformed' };
  return { kind: 'link', link: { v, prev, hash } };
};

export const linkHashOf = (metadata: unknown): string | null => {
  const state = readChain(metadata);
  return state.kind === 'link' ? state.link.hash : null;
};

/** Whether a JSON round trip gives back an equal value; iterative, so depth cannot overflow. */
const isStoredJson = (root: unknown): boolean => {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null) continue;
    switch (typeof value) {
      case 'string':
      case 'boolean':
      case 'number':
        continue;
      case 'object':
        break;
      default:
        return false;
    }
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        if (!(i in value) || value[i] === undefined) return false;
        stack.push(value[i]);
      }
      continue;
    }
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) return false;
    // An own toJSON is a function value, refused when popped; an inherited one needs another
    // prototype.
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const item = record[key];
      if (item !== undefined) stack.push(item);
    }
  }
  return true;
};

/** Hashed as the log gives it back, so the verifier recomputes the same bytes. */
export const asStoredJson = (value: unknown, what: string, index: number): unknown => {
  if (isStoredJson(value)) return value;
  return JSON.parse(jsonTextOf(value, what, index)) as unknown;
};
