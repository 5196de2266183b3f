import { Inject } from '@nestjs/common';
import { type IQueryHandler, Query, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { createVerifier } from '@arbor/audit';
import { conversationStream, type EventStore } from '@arbor/event-store';
import { type Caller } from '../caller';
import { ARBOR_CONFIG, type ArborConfig } from '../config/config';
import { GetConversation } from '../conversations/queries';
import { auditSecretOf, EVENT_STORE, SEALED_EVENT_STORE } from '../store/store.provider';

const PAGE = 1000;
const MAX_FINDINGS = 100;

export interface ConversationVerdict {
  conversationId: string;
  ok: boolean;
  events: number;
  chained: number;
  unchained: number;
  lastRevision: number;
  totals: Record<string, number>;
  findings: {
    kind: string;
    revision: number;
    position: string;
    detail: string;
    missing?: { from: number; to: number };
  }[];
}

/** Sees edits and reorderings in the stream; a removal at its very end shows only to `arbor verify`. */
export class VerifyConversation extends Query<ConversationVerdict> {
  constructor(
    readonly caller: Caller,
    readonly conversationId: string,
  ) {
    super();
  }
}

export class GetLogHead extends Query<{ kind: string; position: string | null }> {}

@QueryHandler(VerifyConversation)
export class VerifyConversationHandler implements IQueryHandler<VerifyConversation> {
  private secret: Buffer | null = null;

  constructor(
    private readonly queries: QueryBus,
    @Inject(SEALED_EVENT_STORE) private readonly store: EventStore,
    @Inject(ARBOR_CONFIG) private readonly config: ArborConfig,
  ) {}

  async execute({ caller, conversationId: id }: VerifyConversation): Promise<ConversationVerdict> {
    await this.queries.execute(new GetConversation(caller, id));
    this.secret ??= auditSecretOf(this.config);
    const verifier = createVerifier(this.secret, { maxFindings: MAX_FINDINGS });
    const stream = conversationStream(caller.tenantId, id);
    let from = 0n;
    let last = -1n;
    for (;;) {
      const page = await this.store.readStream(stream, { fromRevision: from, maxCount: PAGE });
      for (const event of page) {
        verifier.add(event);
        last = event.revision;
      }
      if (page.length < PAGE) break;
      from = last + 1n;
    }
    const report = verifier.finish();
    return {
      conversationId: id,
      ok: report.ok,
      events: report.events,
      chained: report.chained,
      unchained: report.unchained.count,
      lastRevision: Number(last),
      totals: report.totals,
      findings: report.findings.map((f) => ({
        kind: f.kind,
        revision: Number(f.revision),
        position: f.position.toString(),
        detail: f.detail,
        ...(f.missing && { missing: { from: Number(f.missing.from), to: Number(f.missing.to) } }),
      })),
    };
  }
}

@QueryHandler(GetLogHead)
export class GetLogHeadHandler implements IQueryHandler<GetLogHead> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute(): Promise<{ kind: string; position: string | null }> {
    const head = await this.store.headPosition();
    return { kind: this.store.kind, position: head === null ? null : head.toString() };
  }
}

export const AUDIT_QUERY_HANDLERS = [VerifyConversationHandler, GetLogHeadHandler];
