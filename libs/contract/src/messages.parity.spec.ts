/**
 * The contract's message schema (zod, what the HTTP edge and the OpenAPI document use) and the
 * domain's parser (`parseMessages`) accept exactly the same messages. Both run on every turn;
 * when one of them goes, this is what says the other lost nothing. The image byte limit is the
 * one difference, by design: it is configuration (ARBOR_MAX_IMAGE_BYTES), which a static schema
 * cannot carry, so the domain with a limit must accept what the schema accepts and whose every
 * image is within it.
 */
import fc from 'fast-check';
import { z } from 'zod';
import { parseMessage, parseMessages } from '@arbor/domain';
import { MessageInputSchema } from './messages';
import { asJson, largestImage, message, messages } from './testing/message-arbitraries';

const Messages = z.array(MessageInputSchema);
const verdicts = { accepted: 0, refused: 0 };

const agree = (input: unknown, limit: number): void => {
  const schema = Messages.safeParse(input);
  const domain = parseMessages(input, { maxImageBytes: limit });
  const expected = schema.success && largestImage(input) <= limit;
  if (domain.ok !== expected) {
    const said = {
      schema: schema.success ? 'accepts' : schema.error.issues.slice(0, 3),
      domain: domain.ok ? 'accepts' : domain.errors.slice(0, 3),
      limit,
      largestImage: largestImage(input),
    };
    throw new Error(`the schema and the domain disagree: ${JSON.stringify(said, null, 1)}`);
  }
  verdicts[domain.ok ? 'accepted' : 'refused'] += 1;
};

describe('the contract schema and the domain parser accept the same messages', () => {
  afterAll(() => {
    // Both outcomes were exercised (a generator that only made refusals would prove nothing).
    expect(verdicts.accepted).toBeGreaterThan(100);
    expect(verdicts.refused).toBeGreaterThan(100);
  });

  it('on turns of valid messages and of messages one field away from valid, with and without an image limit', () => {
    fc.assert(
      fc.property(
        fc.oneof(messages.valid, { arbitrary: messages.near, weight: 4 }).map(asJson),
        fc.oneof(fc.constant(Number.MAX_SAFE_INTEGER), fc.integer({ min: 10, max: 80 })),
        agree,
      ),
      { numRuns: 5000 },
    );
  });

  it('on one message, and on what is not a message at all', () => {
    fc.assert(
      fc.property(
        fc
          .oneof(message.valid, message.near, fc.constantFrom(null, 'x', 1, [], [{}], true))
          .map(asJson),
        (input) => {
          expect(parseMessage(input).ok).toBe(MessageInputSchema.safeParse(input).success);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
