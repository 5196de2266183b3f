/**
 * Bodies valid by OpenAI's own definition: every real fixture (test/fixtures/real), encoded for
 * `openai-chat` and `openai-responses`, validated against the request schemas of OpenAI's
 * published OpenAPI document (`CreateChatCompletionRequest`, `CreateResponse`; the cut and its
 * provenance are in test/fixtures/openai-openapi). Strict backends (Azure, vLLM, LiteLLM-style)
 * validate by that document; OpenAI's hosted API is more tolerant.
 */
import * as fs from 'node:fs';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { OPENAI_OPENAPI_SCHEMAS } from '@arbor/fixtures';
import { loadRealWindows } from '../ladder/testing/fixtures';
import { chain, png, text } from '../testing/conversation';
import { encode } from './index';

const DOC_ID = 'openai-openapi.json';
const ajv = new Ajv2020({ strict: false, allErrors: false, discriminator: false });
addFormats(ajv);

/**
 * Two readings of the OpenAPI dialect, the rest is JSON Schema 2020-12 as ajv runs it:
 * - OpenAPI 3.0's `nullable: true` is still on a few schemas, two without a `type` (ajv refuses
 *   those): each becomes what it means, `anyOf: [the schema, {type: 'null'}]`;
 * - `oneOf` is read as a union (`anyOf`), as OpenAI's generated SDKs and pydantic-based backends
 *   read it: the document's unions overlap (a user message with a content list is both an
 *   `EasyInputMessage` and an input `Message`; its `discriminator` on `type` cannot tell them
 *   apart), so a literal "exactly one" would refuse every message.
 */
const openApiAsJsonSchema = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(openApiAsJsonSchema);
  if (value === null || typeof value !== 'object') return value;
  const { nullable, ...rest } = value as Record<string, unknown>;
  const inner = Object.fromEntries(
    Object.entries(rest).map(([k, v]) => [k === 'oneOf' ? 'anyOf' : k, openApiAsJsonSchema(v)]),
  );
  return nullable === true ? { anyOf: [inner, { type: 'null' }] } : inner;
};
const doc = openApiAsJsonSchema(JSON.parse(fs.readFileSync(OPENAI_OPENAPI_SCHEMAS, 'utf8')));
ajv.addSchema({ ...(doc as object), $id: DOC_ID });
const validator = (name: string) => ajv.compile({ $ref: `${DOC_ID}#/components/schemas/${name}` });
const SCHEMAS = {
  'openai-chat': validator('CreateChatCompletionRequest'),
  'openai-responses': validator('CreateResponse'),
} as const;

const tools = [
  {
    name: 'read',
    description: 'Read a file',
    input_schema: { type: 'object', properties: { path: { type: 'string' } } },
  },
];

/** A short conversation with every block kind the encoders write. */
const everyKind = chain([
  { role: 'system', content: [text('Be terse.')] },
  { role: 'user', content: [text('Look'), png()] },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'hm', signature: 's' },
      text('Reading.'),
      { type: 'tool_use', id: 'call_1', name: 'read', input: { path: 'a' } },
      { type: 'tool_use', id: 'call_2', name: 'read', input: { path: 'b' } },
    ],
  },
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'call_1', content: 'A' },
      { type: 'tool_result', tool_use_id: 'call_2', content: [text('B'), png()], is_error: true },
      text('and?'),
    ],
  },
  { role: 'assistant', content: [text('Done.'), text('Really.')] },
  { role: 'user', content: [text('thanks')] },
]);

const windows = [
  { file: 'every block kind', messages: everyKind },
  ...loadRealWindows().map((w) => ({ file: w.file, messages: w.messages })),
];

describe("OpenAI bodies against OpenAI's published OpenAPI schemas", () => {
  describe.each(['openai-chat', 'openai-responses'] as const)('%s', (provider) => {
    it.each(windows.map((w) => [w.file, w.messages] as const))('%s', (_file, messages) => {
      const body = encode(provider, messages, {
        model: 'gpt-4.1',
        system: 'You are Arbor.',
        tools,
        maxTokens: 512,
      });
      const validate = SCHEMAS[provider];
      const ok = validate(body);
      expect(ok ? [] : validate.errors?.slice(0, 3)).toEqual([]);
    });
  });

  it('encoding 1 (before the fix) is refused: assistant output_text without annotations', () => {
    const body = encode('openai-responses', everyKind, { model: 'gpt-4.1', encoding: 1 });
    expect(SCHEMAS['openai-responses'](body)).toBe(false);
  });
});
