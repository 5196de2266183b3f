import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { createVerifier } from '@arbor/audit';
import {
  ARBOR_CONFIG,
  type ArborConfig,
  auditSecretOf,
  SEALED_EVENT_STORE,
  GetConversation,
} from '@arbor/application';
import { conversationStream, type EventStore } from '@arbor/event-store';
import { AuthGuard } from '../auth/auth.guard';
import { type Caller, CallerParam } from '../auth/caller';
import { IdParam } from '../validation/id-param';

/** Events read from the stream per page while verifying. */
const PAGE = 1000;
/** Findings listed in the answer (the totals count every one). */
const MAX_FINDINGS = 100;

/**
 * The hash-chain verdict of one conversation, for its own tenant: every event of the stream is
 * recomputed from its fields with the audit secret (the same verifier as `arbor verify`, run over
 * this one stream). It sees edits, insertions and reorderings inside the stream and removals
 * before its last event; an event removed from the very end of a stream is only visible to the
 * whole-log `arbor verify`, which has the global positions after it. The route and its answer are
 * in @arbor/contract (console-routes.ts).
 */
@UseGuards(AuthGuard)
@Controller('v1/conversations')
export class VerifyController {
  private secret: Buffer | null = null;

  constructor(
    private readonly queries: QueryBus,
    @Inject(SEALED_EVENT_STORE) private readonly store: EventStore,
    @Inject(ARBOR_CONFIG) private readonly config: ArborConfig,
  ) {}

  @Get(':id/verify')
  async verify(@IdParam('id') id: string, @CallerParam() caller: Caller) {
    // 404 conversation_not_found for an unknown id and for another tenant's, alike.
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
