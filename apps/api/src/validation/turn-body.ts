import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { type z } from 'zod';
import { ARBOR_CONFIG, type ArborConfig, parseTurnBody } from '@arbor/application';
import { FieldLimits, turnJsonFields } from '../limits/field-limits';

/**
 * A body carrying a turn's messages (`POST …/turns`, `PUT …/draft`, `POST …/draft/commit`),
 * checked one way everywhere: the contract's schema with the domain's message parser (images
 * within ARBOR_MAX_IMAGE_BYTES), then the JSON-field limits on metadata and tool inputs.
 */
@Injectable()
export class TurnBodies {
  constructor(
    private readonly fields: FieldLimits,
    @Inject(ARBOR_CONFIG) private readonly config: ArborConfig,
  ) {}

  parse<T extends z.ZodType<{ messages: unknown[] }>>(schema: T, body: unknown) {
    const b = parseTurnBody(schema, body, this.config.maxImageBytes);
    this.fields.check(turnJsonFields(b.messages));
    return b;
  }
}

/** A commit answers 201, or 200 when it replays a turn already committed under its turnId. */
export const answerCommit = <T extends { replayed: boolean }>(
  reply: FastifyReply,
  result: T,
): T => {
  if (result.replayed) void reply.status(200);
  return result;
};
