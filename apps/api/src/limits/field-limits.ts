import { Inject, Injectable } from '@nestjs/common';
import { type Message } from '@arbor/domain';
import { ARBOR_CONFIG, type ArborConfig } from '@arbor/application';
import { checkJsonFields, type JsonFieldLimits } from './json-limits';

/** The free-form JSON fields of a parsed turn, with their request paths. */
export function* turnJsonFields(
  messages: readonly Pick<Message, 'content' | 'metadata'>[],
): Generator<readonly [string, unknown]> {
  for (const [i, m] of messages.entries()) {
    yield [`body.messages[${i}].metadata`, m.metadata];
    for (const [j, b] of m.content.entries()) {
      if (b.type === 'tool_use') yield [`body.messages[${i}].content[${j}].input`, b.input];
    }
  }
}

/** One rule (ARBOR_JSON_MAX_DEPTH / ARBOR_JSON_MAX_BYTES) for every free-form JSON field. */
@Injectable()
export class FieldLimits {
  readonly limits: JsonFieldLimits;
  constructor(@Inject(ARBOR_CONFIG) config: ArborConfig) {
    this.limits = { maxDepth: config.limits.jsonMaxDepth, maxBytes: config.limits.jsonMaxBytes };
  }

  /** Throws `400 json_too_deep` or `413 field_too_large` naming the first field over a limit. */
  check(fields: Iterable<readonly [string, unknown]>): void {
    checkJsonFields(fields, this.limits);
  }
}
