/**
 * fast-check generators of valid and near-valid messages as a request body carries them: every
 * block type, every field present, absent, null, of the wrong type or at a boundary (empty
 * strings, id and URL lengths, counts, image headers, dimensions and sizes, nesting depth).
 */
import fc from 'fast-check';
import {
  decodedLength,
  ID_MAX_LENGTH,
  MAX_IMAGE_SIDE,
  MAX_IMAGE_URL_LENGTH,
  MAX_MESSAGE_DEPTH,
} from '@arbor/domain';
import { gifHeader, jpegHeader, pngHeader } from '@arbor/domain/testing/images';

const ABSENT = Symbol('absent');

/** An object whose fields may be absent. */
const obj = (fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<object> =>
  fc
    .record(fields)
    .map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== ABSENT)));

/** A field: mostly `valid`, sometimes one of the near misses. */
const field = (valid: fc.Arbitrary<unknown>, ...misses: unknown[]): fc.Arbitrary<unknown> =>
  misses.length === 0
    ? valid
    : fc.oneof(
        { arbitrary: valid, weight: 5 },
        { arbitrary: fc.constantFrom(...misses), weight: 1 },
      );

const WRONG = [ABSENT, null, 0, true, [], {}] as const;
const str = fc.string({ unit: 'binary', minLength: 1, maxLength: 6 });
const anyStr = fc.string({ unit: 'binary', maxLength: 6 });
/** A required non-empty string. */
const text = field(str, ...WRONG, '');
/** A required string that may be empty. */
const text0 = field(anyStr, ...WRONG);
/** An optional non-empty string. */
const optText = field(fc.constantFrom(ABSENT, 'x', 'rs_1'), null, 0, '', []);

const id = field(
  fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/), fc.constant('a'.repeat(ID_MAX_LENGTH))),
  ABSENT,
  null,
  7,
  '',
  'a'.repeat(ID_MAX_LENGTH + 1),
  'a b',
  'é',
  'a/b',
  'a\n',
);

/** `{a: {a: … {}}}`, `levels` objects deep. */
const nested = (levels: number): Record<string, unknown> => {
  let v: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) v = { a: v };
  return v;
};
/** Depths around the limit wherever the free JSON sits (1 to 4 levels below the message). */
const deep = fc.integer({ min: MAX_MESSAGE_DEPTH - 6, max: MAX_MESSAGE_DEPTH + 1 }).map(nested);
const jsonObject = field(
  fc.oneof(
    { arbitrary: fc.constantFrom({}, { k: 1 }, { k: [1, { x: null }] }), weight: 6 },
    { arbitrary: deep, weight: 1 },
  ),
  null,
  [],
  'x',
  3,
);
const optJsonObject = fc.oneof({ arbitrary: fc.constant(ABSENT), weight: 3 }, jsonObject);
const extras = { clientData: optJsonObject, cache_control: fc.constantFrom(ABSENT, { type: 'x' }) };

/* ---- images ---- */

type Format = 'png' | 'jpeg' | 'gif' | 'webp';
const MEDIA: Record<Format, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

const webpHeader = (width: number, height: number, size: number): Buffer => {
  const b = Buffer.alloc(Math.max(size, 30), 0);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(b.length - 8, 4);
  b.write('WEBPVP8X', 8, 'latin1');
  b.writeUInt32LE(10, 16);
  b.writeUIntLE(Math.max(width - 1, 0) & 0xffffff, 24, 3);
  b.writeUIntLE(Math.max(height - 1, 0) & 0xffffff, 27, 3);
  return b;
};

const side = fc.constantFrom(1, 2, MAX_IMAGE_SIDE, 0, MAX_IMAGE_SIDE + 1);

const imageBytes = fc
  .record({
    format: fc.constantFrom<Format | 'garbage'>('png', 'jpeg', 'gif', 'webp', 'garbage'),
    width: side,
    height: side,
    filler: fc.integer({ min: 0, max: 40 }),
    cut: fc.option(fc.integer({ min: 0, max: 30 }), { freq: 8 }),
  })
  .map(({ format, width, height, filler, cut }) => {
    const w16 = Math.min(width, 0xffff);
    const h16 = Math.min(height, 0xffff);
    const head =
      format === 'png'
        ? pngHeader(width, height)
        : format === 'jpeg'
          ? jpegHeader(w16, h16)
          : format === 'gif'
            ? gifHeader(w16, h16)
            : format === 'webp'
              ? webpHeader(width, height, 30 + filler)
              : Buffer.from('not an image at all');
    const full = Buffer.concat([head, Buffer.alloc(format === 'webp' ? 0 : filler, 7)]);
    return { format, bytes: cut === null ? full : full.subarray(0, cut) };
  });

/** Strict base64 of the bytes, or one that breaks a rule of it. */
const base64Of = (bytes: Buffer, how: number): string => {
  const b64 = bytes.toString('base64');
  switch (how) {
    case 1:
      return b64.replace(/=+$/, '');
    case 2:
      return `${b64.slice(0, 4)} ${b64.slice(4)}`;
    case 3:
      return b64.replace(/\+/g, '-').replace(/\//g, '_');
    case 4: {
      // Unused bits set before the padding: not the canonical encoding.
      const m = /([A-Za-z0-9+/])(=+)$/.exec(b64);
      return m ? `${b64.slice(0, m.index)}${m[2].length === 2 ? 'B' : 'B'}${m[2]}` : b64;
    }
    case 5:
      return `${b64}=`;
    default:
      return b64;
  }
};

const base64Source = fc
  .record({
    image: imageBytes,
    how: fc.oneof({ arbitrary: fc.constant(0), weight: 6 }, fc.integer({ min: 1, max: 5 })),
    declared: fc.constantFrom('same', 'same', 'same', 'other', 'bad', 'absent'),
    type: fc.constantFrom('base64', 'base64', 'base64', 'base65'),
  })
  .map(({ image, how, declared, type }) => {
    const own = image.format === 'garbage' ? 'image/png' : MEDIA[image.format];
    const media_type =
      declared === 'same'
        ? own
        : declared === 'other'
          ? own === 'image/png'
            ? 'image/gif'
            : 'image/png'
          : declared === 'bad'
            ? 'image/bmp'
            : ABSENT;
    return { type, media_type, data: base64Of(image.bytes, how) };
  });

const urlSource = obj({
  type: fc.constant('url'),
  url: field(
    fc.constantFrom('https://example.com/a.png', 'http://x', 'HTTPS://X/Y'),
    ...WRONG,
    '',
    'ftp://x/a.png',
    'example.com/a.png',
    'https://a b',
    'https://',
    `https://${'a'.repeat(MAX_IMAGE_URL_LENGTH - 8)}`,
    `https://${'a'.repeat(MAX_IMAGE_URL_LENGTH - 7)}`,
  ),
});

const fileSource = obj({
  type: fc.constant('file'),
  provider: field(fc.constantFrom('anthropic', 'openai', 'gemini'), ...WRONG, 'azure'),
  file_id: text,
  media_type: fc.constantFrom(ABSENT, ABSENT, 'image/png', 'image/bmp', null),
});

const source = fc.oneof(
  {
    arbitrary: base64Source.map((s) =>
      Object.fromEntries(Object.entries(s).filter(([, v]) => v !== ABSENT)),
    ),
    weight: 4,
  },
  { arbitrary: urlSource, weight: 2 },
  { arbitrary: fileSource, weight: 2 },
  fc.constantFrom(ABSENT, null, 'x', [], {}, { type: 'other' }),
);

/* ---- blocks ---- */

const textBlock = obj({ type: fc.constant('text'), text, ...extras });
const imageBlock = obj({ type: fc.constant('image'), source, ...extras });
const toolUse = obj({
  type: fc.constant('tool_use'),
  id: text,
  name: text,
  input: jsonObject,
  ...extras,
});
const thinking = obj({
  type: fc.constant('thinking'),
  thinking: text0,
  signature: text0,
  ...extras,
});
const redacted = obj({ type: fc.constant('redacted_thinking'), data: text, ...extras });
const summaryPart = obj({
  type: field(fc.constant('summary_text'), ...WRONG, 'text'),
  text: text0,
});
const reasoning = obj({
  type: fc.constant('reasoning'),
  id: optText,
  summary: field(fc.array(summaryPart, { maxLength: 2 }), ...WRONG, 'x', ['x']),
  encrypted_content: optText,
  ...extras,
});
const provider = obj({
  type: fc.constant('provider'),
  provider: field(fc.constantFrom('anthropic', 'openai'), ...WRONG, 'gemini'),
  model: optText,
  item: field(
    fc.oneof(
      fc.constantFrom({ type: 'compaction', content: 'S' }, { type: 'web_search_call', id: 'w' }),
      deep.map((d) => ({ type: 'x', d })),
    ),
    ...WRONG,
    { type: '' },
    { type: 5 },
    { content: 'no type' },
  ),
  ...extras,
});
const unknownBlock = fc.constantFrom(
  { type: 'document', source: {} },
  { type: 5 },
  { text: 'no type' },
  null,
  'text',
  [],
);
const toolResultItem = fc.oneof(textBlock, imageBlock, toolUse, thinking, unknownBlock);
const toolResult = obj({
  type: fc.constant('tool_result'),
  tool_use_id: text,
  name: optText,
  content: field(fc.oneof(anyStr, fc.array(toolResultItem, { maxLength: 2 })), ABSENT, null, 5, {}),
  is_error: fc.constantFrom(ABSENT, ABSENT, true, false, 'yes', null, 0),
  ...extras,
});

const block = fc.oneof(
  textBlock,
  imageBlock,
  toolUse,
  toolResult,
  thinking,
  redacted,
  reasoning,
  provider,
  { arbitrary: unknownBlock, weight: 1 },
);

/** Mostly the blocks the role may carry, so the other fields' near misses are what decides. */
const blocksFor = {
  system: textBlock,
  user: fc.oneof(textBlock, imageBlock, toolResult),
  assistant: fc.oneof(textBlock, toolUse, thinking, redacted, reasoning, provider),
};

/* ---- messages ---- */

const count = fc.constantFrom(ABSENT, ABSENT, 0, 7, null, -1, 1.5, 2 ** 53 - 1, 2 ** 53, '3', true);
const details = fc.constantFrom(
  ABSENT,
  ABSENT,
  {},
  { cached_tokens: 2 },
  { cached_tokens: -1 },
  null,
  'x',
  [],
);
const usage = field(
  obj({
    input_tokens: count,
    output_tokens: count,
    cache_read_input_tokens: count,
    cache_creation_input_tokens: count,
    prompt_tokens: count,
    completion_tokens: count,
    prompt_tokens_details: details,
    input_tokens_details: details,
    total_tokens: fc.constantFrom(ABSENT, 9),
  }),
  null,
  [],
  'x',
);

const roleAndContent = fc.constantFrom('system', 'user', 'assistant').chain((role) =>
  fc.record({
    role: field(fc.constant(role), ...WRONG, 'tool', 'User'),
    content: field(
      fc.array(fc.oneof({ arbitrary: blocksFor[role], weight: 6 }, block), {
        minLength: 1,
        maxLength: 3,
      }),
      ...WRONG,
      'x',
    ),
  }),
);

const messageRest = obj({
  id: fc.oneof({ arbitrary: fc.constant(ABSENT), weight: 2 }, id),
  pinned: fc.constantFrom(ABSENT, ABSENT, true, false, 'yes', null),
  model: optText,
  usage: fc.oneof({ arbitrary: fc.constant(ABSENT), weight: 2 }, usage),
  metadata: optJsonObject,
  clientData: optJsonObject,
  // Unknown fields are dropped, so their depth does not count.
  cache_control: fc.oneof(fc.constantFrom(ABSENT, { type: 'ephemeral' }), deep),
});

export const message = fc
  .tuple(roleAndContent, messageRest)
  .map(([rc, rest]) =>
    Object.fromEntries(Object.entries({ ...rest, ...rc }).filter(([, v]) => v !== ABSENT)),
  );

/** What a request body would carry: the value after a JSON round trip. */
export const asJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v)) as unknown;

/** The largest decoded image of the messages (base64 sources with string data), 0 if none. */
export const largestImage = (v: unknown): number => {
  let max = 0;
  const visit = (x: unknown): void => {
    if (Array.isArray(x)) x.forEach(visit);
    else if (typeof x === 'object' && x !== null) {
      const o = x as Record<string, unknown>;
      const s = o.source as Record<string, unknown> | undefined;
      if (o.type === 'image' && s?.type === 'base64' && typeof s.data === 'string')
        max = Math.max(max, decodedLength(s.data));
      if (Array.isArray(o.content)) visit(o.content);
    }
  };
  visit(v);
  return max;
};
