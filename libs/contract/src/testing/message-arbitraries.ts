/**
 * fast-check generators of messages as a request body carries them, each in two forms: `valid`,
 * and `near` — valid but for exactly one field somewhere inside, which is absent, null, of the
 * wrong type or at a boundary (empty strings, id and URL lengths, counts, image headers, sides
 * and encodings, nesting depth, a block the role may not carry). One near miss per value makes
 * each rule the one that decides, so a rule one validator lacks is met in every run.
 */
import fc from 'fast-check';
import {
  decodedLength,
  ID_MAX_LENGTH,
  MAX_IMAGE_SIDE,
  MAX_IMAGE_URL_LENGTH,
  MAX_MESSAGE_DEPTH,
  type Role,
} from '@arbor/domain';
import { gifHeader, jpegHeader, pngHeader } from '@arbor/domain/testing/images';

/** A value in its two forms; `size` counts its kinds of near miss, to weigh choices by. */
export interface Gen {
  valid: fc.Arbitrary<unknown>;
  near: fc.Arbitrary<unknown>;
  size: number;
}

/** Stands for "the field is not there". */
const ABSENT = Symbol('absent');

const leaf = (valid: fc.Arbitrary<unknown>, ...near: unknown[]): Gen => ({
  valid,
  near: fc.constantFrom(...near),
  size: near.length,
});

const leafOf = (valid: fc.Arbitrary<unknown>, near: fc.Arbitrary<unknown>, size: number): Gen => ({
  valid,
  near,
  size,
});

/** One of the arbitraries, each as likely as the near misses it stands for. */
const weighed = (...choices: [fc.Arbitrary<unknown>, number][]): fc.Arbitrary<unknown> =>
  fc.oneof(...choices.map(([arbitrary, weight]) => ({ arbitrary, weight })));

const withoutAbsent = (r: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(r).filter(([, v]) => v !== ABSENT));

/** An object: every field valid, or exactly one field near (or, with `own`, not an object). */
const obj = (fields: Record<string, Gen>, own: unknown[] = []): Gen => {
  const keys = Object.keys(fields);
  const record = (bad: string | null) =>
    fc
      .record(
        Object.fromEntries(keys.map((k) => [k, k === bad ? fields[k].near : fields[k].valid])),
      )
      .map(withoutAbsent);
  const inner = keys.reduce((n, k) => n + fields[k].size, 0);
  const one = weighed(
    ...keys.map((k): [fc.Arbitrary<unknown>, number] => [record(k), fields[k].size]),
  );
  return {
    valid: record(null),
    near: own.length > 0 ? weighed([one, inner], [fc.constantFrom(...own), own.length]) : one,
    size: inner + own.length,
  };
};

const oneOf = (...gens: Gen[]): Gen => ({
  valid: fc.oneof(...gens.map((g) => g.valid)),
  near: weighed(...gens.map((g): [fc.Arbitrary<unknown>, number] => [g.near, g.size])),
  size: gens.reduce((n, g) => n + g.size, 0),
});

/** Absent, or the value. */
const optional = (g: Gen): Gen => ({
  valid: fc.oneof(fc.constant(ABSENT), g.valid),
  near: g.near,
  size: g.size,
});

/** `min`–`max` items: all valid, or one of them near (or, with `own`, not such a list). */
const list = (item: Gen, min: number, max: number, own: unknown[] = []): Gen => {
  const one = fc
    .tuple(
      fc.array(item.valid, { minLength: Math.max(min - 1, 0), maxLength: max - 1 }),
      item.near,
      fc.nat(),
    )
    .map(([items, bad, at]) => {
      const out = [...items];
      out.splice(at % (items.length + 1), 0, bad);
      return out;
    });
  return {
    valid: fc.array(item.valid, { minLength: min, maxLength: max }),
    near: own.length > 0 ? weighed([one, item.size], [fc.constantFrom(...own), own.length]) : one,
    size: item.size + own.length,
  };
};

const WRONG = [ABSENT, null, 0, true, [], {}] as const;
const str = fc.string({ unit: 'binary', minLength: 1, maxLength: 6 });
const anyStr = fc.string({ unit: 'binary', maxLength: 6 });
/** A required non-empty string. */
const text = leaf(str, ...WRONG, '');
/** A required string that may be empty. */
const text0 = leaf(anyStr, ...WRONG);
/** An optional non-empty string. */
const optText = leaf(fc.constantFrom(ABSENT, 'x', 'rs_1'), null, 0, '', []);
const typeOf = (type: string) => leaf(fc.constant(type), ABSENT, 5, type.toUpperCase(), 'document');

const id = leaf(
  fc.oneof(
    fc.constant(ABSENT),
    fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/),
    fc.constant('a'.repeat(ID_MAX_LENGTH)),
  ),
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
const someObject = fc.constantFrom({}, { k: 1 }, { k: [1, { x: null }] });
const notObject = fc.constantFrom(null, [], 'x', 3);
const jsonObject = leafOf(someObject, fc.oneof(notObject, fc.constant(ABSENT), deep), 6);
const optJsonObject = leafOf(
  fc.oneof(fc.constant(ABSENT), someObject),
  fc.oneof(notObject, deep),
  5,
);
// Unknown fields are dropped, so their depth does not count.
const unknownField = leafOf(fc.constantFrom(ABSENT, { type: 'x' }), deep, 1);
const extras = { clientData: optJsonObject, cache_control: unknownField };

/* ---- images ---- */

type Format = 'png' | 'jpeg' | 'gif' | 'webp';
const FORMATS: readonly Format[] = ['png', 'jpeg', 'gif', 'webp'];
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

const imageOf = (format: Format | 'garbage', width: number, height: number, filler: number) => {
  const w16 = Math.min(width, 0xffff);
  const h16 = Math.min(height, 0xffff);
  if (format === 'webp') return webpHeader(width, height, 30 + filler);
  const head =
    format === 'png'
      ? pngHeader(width, height)
      : format === 'jpeg'
        ? jpegHeader(w16, h16)
        : format === 'gif'
          ? gifHeader(w16, h16)
          : Buffer.from('not an image at all');
  return Buffer.concat([head, Buffer.alloc(filler, 7)]);
};

const goodSide = fc.constantFrom(1, 2, MAX_IMAGE_SIDE);
const filler = fc.integer({ min: 0, max: 40 });
const goodImage = fc
  .record({ format: fc.constantFrom(...FORMATS), width: goodSide, height: goodSide, filler })
  .map((i) => ({ format: i.format, bytes: imageOf(i.format, i.width, i.height, i.filler) }));
/** A readable header but for one thing: a side out of range, a cut, or no image at all. */
const badImage = fc.oneof(
  fc
    .record({
      format: fc.constantFrom(...FORMATS),
      width: fc.constantFrom(0, MAX_IMAGE_SIDE + 1, 1),
      height: fc.constantFrom(0, MAX_IMAGE_SIDE + 1),
      filler,
    })
    .map((i) => ({ format: i.format, bytes: imageOf(i.format, i.width, i.height, i.filler) })),
  fc
    .tuple(goodImage, fc.integer({ min: 0, max: 30 }))
    .map(([i, cut]) => ({ format: i.format, bytes: i.bytes.subarray(0, cut) })),
  filler.map((f) => ({ format: 'png' as const, bytes: imageOf('garbage', 1, 1, f) })),
);

/** Base64 that breaks one rule of the strict form. */
const badBase64 = (b64: string, how: number): string => {
  switch (how) {
    case 0:
      return b64.replace(/=+$/, '');
    case 1:
      return `${b64.slice(0, 4)} ${b64.slice(4)}`;
    case 2:
      return b64.replace(/\+/g, '-').replace(/\//g, '_');
    case 3: {
      // Unused bits set before the padding: not the canonical encoding.
      const m = /([A-Za-z0-9+/])(=+)$/.exec(b64);
      return m ? `${b64.slice(0, m.index)}B${m[2]}` : `${b64}A`;
    }
    case 4:
      return `${b64}=`;
    default:
      return '';
  }
};

const otherMedia = (own: string) => (own === 'image/png' ? 'image/gif' : 'image/png');

const base64Source: Gen = {
  valid: goodImage.map((i) => ({
    type: 'base64',
    media_type: MEDIA[i.format],
    data: i.bytes.toString('base64'),
  })),
  size: 16,
  near: fc.oneof(
    badImage.map((i) => ({
      type: 'base64',
      media_type: MEDIA[i.format],
      data: i.bytes.toString('base64'),
    })),
    fc.tuple(goodImage, fc.integer({ min: 0, max: 5 })).map(([i, how]) => ({
      type: 'base64',
      media_type: MEDIA[i.format],
      data: badBase64(i.bytes.toString('base64'), how),
    })),
    fc.tuple(goodImage, fc.constantFrom('other', 'image/bmp', ABSENT, null)).map(([i, declared]) =>
      withoutAbsent({
        type: 'base64',
        media_type: declared === 'other' ? otherMedia(MEDIA[i.format]) : declared,
        data: i.bytes.toString('base64'),
      }),
    ),
    fc
      .tuple(goodImage, fc.constantFrom(ABSENT, null, 5))
      .map(([i, data]) => withoutAbsent({ type: 'base64', media_type: MEDIA[i.format], data })),
    goodImage.map((i) => ({
      type: 'base65',
      media_type: MEDIA[i.format],
      data: i.bytes.toString('base64'),
    })),
  ),
};

const urlSource = obj({
  type: typeOf('url'),
  url: leaf(
    fc.constantFrom(
      'https://example.com/a.png',
      'http://x',
      'HTTPS://X/Y',
      `https://${'a'.repeat(MAX_IMAGE_URL_LENGTH - 8)}`,
    ),
    ...WRONG,
    '',
    'ftp://x/a.png',
    'example.com/a.png',
    'https://a b',
    'https://',
    `https://${'a'.repeat(MAX_IMAGE_URL_LENGTH - 7)}`,
  ),
});

const fileSource = oneOf(
  obj({
    type: typeOf('file'),
    provider: leaf(fc.constantFrom('anthropic', 'openai'), ...WRONG, 'azure'),
    file_id: text,
    media_type: leaf(fc.constantFrom(ABSENT, 'image/png'), 'image/bmp', null),
  }),
  // Gemini needs the media type.
  obj({
    type: typeOf('file'),
    provider: leaf(fc.constant('gemini'), 'azure'),
    file_id: text,
    media_type: leaf(fc.constantFrom('image/png', 'image/webp'), ABSENT, 'image/bmp', null),
  }),
);

const sources = oneOf(base64Source, urlSource, fileSource);
const source: Gen = {
  valid: sources.valid,
  near: weighed(
    [sources.near, sources.size],
    [fc.constantFrom(ABSENT, null, 'x', [], {}, { type: 'other' }), 6],
  ),
  size: sources.size + 6,
};

/* ---- blocks ---- */

const textBlock = obj({ type: typeOf('text'), text, ...extras });
const imageBlock = obj({ type: typeOf('image'), source, ...extras });
const toolUse = obj({
  type: typeOf('tool_use'),
  id: text,
  name: text,
  input: jsonObject,
  ...extras,
});
const thinking = obj({ type: typeOf('thinking'), thinking: text0, signature: text0, ...extras });
const redacted = obj({ type: typeOf('redacted_thinking'), data: text, ...extras });
const summaryPart = obj(
  { type: leaf(fc.constant('summary_text'), ...WRONG, 'text'), text: text0 },
  ['x', null],
);
const reasoning = obj({
  type: typeOf('reasoning'),
  id: optText,
  summary: list(summaryPart, 0, 2, [ABSENT, null, 'x', {}]),
  encrypted_content: optText,
  ...extras,
});
const provider = obj({
  type: typeOf('provider'),
  provider: leaf(fc.constantFrom('anthropic', 'openai'), ...WRONG, 'gemini'),
  model: optText,
  item: leafOf(
    fc.constantFrom({ type: 'compaction', content: 'S' }, { type: 'web_search_call', id: 'w' }),
    fc.oneof(
      fc.constantFrom(...WRONG, { type: '' }, { type: 5 }, { content: 'no type' }),
      deep.map((d) => ({ type: 'x', d })),
    ),
    10,
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
const resultItem: Gen = {
  valid: fc.oneof(textBlock.valid, imageBlock.valid),
  near: weighed(
    [textBlock.near, textBlock.size],
    [imageBlock.near, imageBlock.size],
    [fc.oneof(toolUse.valid, thinking.valid), 2],
    [unknownBlock, 6],
  ),
  size: textBlock.size + imageBlock.size + 8,
};
const resultItems = list(resultItem, 1, 2);
const toolResult = obj({
  type: typeOf('tool_result'),
  tool_use_id: text,
  name: optText,
  content: leafOf(
    fc.oneof(anyStr, resultItems.valid, fc.constant([])),
    weighed([resultItems.near, resultItems.size], [fc.constantFrom(ABSENT, null, 5, {}), 4]),
    resultItems.size + 4,
  ),
  is_error: leaf(fc.constantFrom(ABSENT, true, false), 'yes', null, 0),
  ...extras,
});

const ALLOWED: Record<Role, Gen[]> = {
  system: [textBlock],
  user: [textBlock, imageBlock, toolResult],
  assistant: [textBlock, toolUse, thinking, redacted, reasoning, provider],
};
const EVERY = [textBlock, imageBlock, toolUse, toolResult, thinking, redacted, reasoning, provider];

/** A block of a `role` message: near is a near block, one the role may not carry, or unknown. */
const blockOf = (role: Role): Gen => {
  const allowed = oneOf(...ALLOWED[role]);
  const others = EVERY.filter((g) => !ALLOWED[role].includes(g)).map((g) => g.valid);
  return {
    valid: allowed.valid,
    near: weighed(
      [allowed.near, allowed.size],
      ...(others.length > 0
        ? [[fc.oneof(...others), others.length] as [fc.Arbitrary<unknown>, number]]
        : []),
      [unknownBlock, 6],
    ),
    size: allowed.size + others.length + 6,
  };
};

/* ---- messages ---- */

const count = leaf(fc.constantFrom(ABSENT, 0, 7, null, 2 ** 53 - 1), -1, 1.5, 2 ** 53, '3', true);
const details = optional(obj({ cached_tokens: count }, [null, 'x', []]));
const usage = optional(
  obj(
    {
      input_tokens: count,
      output_tokens: count,
      cache_read_input_tokens: count,
      cache_creation_input_tokens: count,
      prompt_tokens: count,
      completion_tokens: count,
      prompt_tokens_details: details,
      input_tokens_details: details,
      total_tokens: leaf(fc.constantFrom(ABSENT, 9), '9'),
    },
    [null, [], 'x'],
  ),
);

const messageOf = (role: Role): Gen =>
  obj(
    {
      id,
      role: leaf(fc.constant(role), ...WRONG, 'tool', role.toUpperCase()),
      content: list(blockOf(role), 1, 3, [...WRONG, 'x']),
      pinned: leaf(fc.constantFrom(ABSENT, true, false), 'yes', null),
      model: optText,
      usage,
      metadata: optJsonObject,
      clientData: optJsonObject,
      cache_control: unknownField,
    },
    [null, 'x', 1, []],
  );

/** One message. */
export const message: Gen = oneOf(messageOf('system'), messageOf('user'), messageOf('assistant'));

/** A turn's `messages`: up to 3, all valid or one near (or not a list at all). */
export const messages: Gen = list(message, 0, 3, [null, {}, 'x', 3]);

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
