import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Problem } from '../problem/problem';
import { BODY_ENVELOPE_DEPTH, rawJsonDepthExceeds } from './json-limits';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Offset of the first byte that does not belong to a well-formed UTF-8 sequence (RFC 3629). */
export const firstInvalidUtf8 = (bytes: Uint8Array): number => {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i];
    const [n, lo, hi] =
      b < 0x80
        ? [0, 0, 0]
        : b >= 0xc2 && b <= 0xdf
          ? [1, 0x80, 0xbf]
          : b === 0xe0
            ? [2, 0xa0, 0xbf]
            : b === 0xed
              ? [2, 0x80, 0x9f]
              : b >= 0xe1 && b <= 0xef
                ? [2, 0x80, 0xbf]
                : b === 0xf0
                  ? [3, 0x90, 0xbf]
                  : b >= 0xf1 && b <= 0xf3
                    ? [3, 0x80, 0xbf]
                    : b === 0xf4
                      ? [3, 0x80, 0x8f]
                      : [-1, 0, 0];
    if (n < 0) return i;
    for (let k = 1; k <= n; k++) {
      const c = bytes[i + k];
      const [min, max] = k === 1 ? [lo, hi] : [0x80, 0xbf];
      if (c === undefined || c < min || c > max) return i;
    }
    i += n + 1;
  }
  return -1;
};

/**
 * The one JSON body parser (replacing Fastify's):
 * - the bytes must be UTF-8 (RFC 8259 §8.1): anything else is `400 invalid_utf8` with the offset,
 *   instead of a misleading length mismatch from decoding with replacement characters;
 * - nesting is counted on the raw bytes before `JSON.parse` runs, so a 16-million-level body costs
 *   one linear scan that stops at the limit (`400 json_too_deep`), never a long parse;
 * - `JSON.parse` itself: `__proto__` / `constructor` keys become ordinary own properties (it never
 *   assigns prototypes), so they are data like any other key and round-trip byte for byte.
 */
export const parseJsonBody = (bytes: Buffer, maxFieldDepth: number): unknown => {
  if (bytes.length === 0) throw new Problem('malformed_json', 'The body is empty.');
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    const offset = firstInvalidUtf8(bytes);
    throw new Problem('invalid_utf8', `The body is not valid UTF-8 (byte ${offset}).`, { offset });
  }
  const maxDepth = maxFieldDepth + BODY_ENVELOPE_DEPTH;
  const at = rawJsonDepthExceeds(bytes, maxDepth);
  if (at >= 0) {
    throw new Problem('json_too_deep', `The body nests deeper than ${maxDepth} levels.`, {
      maxDepth,
      offset: at,
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new Problem('malformed_json', e instanceof Error ? e.message : undefined);
  }
};

/**
 * No content coding is decoded here, so a body sent with one (`gzip`, `br`, …) would be read as
 * its compressed bytes, or a plain body mislabelled as gzip taken as if the label were absent:
 * either way not what the client meant (RFC 9110 §8.4: 415 for a coding the server does not take).
 */
export const refuseContentCoding = (header: string | string[] | undefined): void => {
  const codings = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length > 0) {
    throw new Problem(
      'unsupported_media_type',
      `Content-Encoding ${codings.join(', ')} is not decoded: send the body unencoded.`,
    );
  }
};

export const installJsonBodyParser = (
  fastify: FastifyInstance,
  maxFieldDepth: number,
  onBody: (bytes: number) => void = () => undefined,
): void => {
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer' },
    (request: FastifyRequest, body: Buffer, done: (err: Error | null, value?: unknown) => void) => {
      onBody(body.length);
      try {
        refuseContentCoding(request.headers['content-encoding']);
        done(null, parseJsonBody(body, maxFieldDepth));
      } catch (e) {
        done(e as Error);
      }
    },
  );
};
