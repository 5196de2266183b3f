import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';
import { exportSession, exportSource, reportHeader } from '@arbor/exporters';
import {
  ARBOR_CONFIG,
  type ArborConfig,
  conversationView,
  GetActiveBranch,
  GetBranchOrTree,
  GetConversation,
  GetMessage,
  GetTree,
  ListCheckpoints,
  ListConversations,
  ListConversationsBy,
  ListEvents,
  markdownChunks,
  type Page,
  HeavyWorkGate,
} from '@arbor/application';
import * as S from '@arbor/contract';
import { type z } from 'zod';
import { type Caller } from '../auth/caller';
import { assertAnswerWithin } from '../limits/answer-bytes';
import { capPageBytes, itemsWithinBytes, jsonLines } from '../limits/page-bytes';
import { parseOrThrow } from '../validation/zod';
import { Cursors } from './cursor';

/**
 * The conversation read routes' answers (parse the query, dispatch to the QueryBus, map the result
 * to the answer: byte-bounded pages, cursors, export streams), shared by the tenant's routes and
 * the admin's reads of a tenant's data, so neither controller holds the other.
 */
@Injectable()
export class ConversationReads {
  constructor(
    private readonly queries: QueryBus,
    @Inject(ARBOR_CONFIG) private readonly config: ArborConfig,
    private readonly cursors: Cursors,
    private readonly gate: HeavyWorkGate,
  ) {}

  /**
   * A list answer, bounded by ARBOR_PAGE_MAX_BYTES as well as by `limit` (`next` then continues
   * at the first item left out); `next` is an opaque cursor bound to the tenant and this list.
   */
  private page<T>(caller: Caller, list: string, whole: Page<T>) {
    const p = capPageBytes(whole, this.config.limits.pageMaxBytes);
    return p.nextAt === null
      ? { items: p.items }
      : { items: p.items, next: this.cursors.encode(caller.tenantId, list, p.nextAt) };
  }

  async list(query: unknown, caller: Caller) {
    const q = parseOrThrow(S.ConversationsQuery, query, 'query');
    const sort = q.sort ?? (q.q !== undefined ? 'title' : 'created');
    const order = q.order ?? 'asc';
    if (sort !== 'created' || order !== 'asc' || q.q !== undefined) {
      // Keyset pages in another order; the cursor is bound to the sort, order and prefix.
      const list = `conversations?sort=${sort}&order=${order}&q=${q.q ?? ''}`;
      const limit = q.limit ?? 50;
      const page = await this.queries.execute(
        new ListConversationsBy(caller, {
          sort,
          order,
          titlePrefix: q.q ?? null,
          after: this.cursors.decodeKey(caller.tenantId, list, q.cursor),
          limit,
        }),
      );
      const items = page.items.map((c) => conversationView({ ...c, forks: [] }));
      const n = itemsWithinBytes(items, this.config.limits.pageMaxBytes);
      const more = page.more || n < items.length;
      return more && n > 0
        ? {
            items: items.slice(0, n),
            next: this.cursors.encodeKey(caller.tenantId, list, page.keys[n - 1]),
          }
        : { items: items.slice(0, n) };
    }
    const p = await this.queries.execute(
      new ListConversations(
        caller,
        this.cursors.decode(caller.tenantId, 'conversations', q.cursor) ?? -1,
        q.limit ?? 50,
      ),
    );
    return this.page(caller, 'conversations', {
      ...p,
      items: p.items.map((c) => conversationView({ ...c, forks: [] })),
    });
  }

  async get(id: string, caller: Caller) {
    return conversationView(await this.queries.execute(new GetConversation(caller, id)));
  }

  async listCheckpoints(id: string, caller: Caller) {
    return assertAnswerWithin(
      { items: await this.queries.execute(new ListCheckpoints(caller, id)) },
      this.config.limits.answerMaxBytes,
      '`…/events`',
    );
  }

  async messages(id: string, query: unknown, caller: Caller) {
    const q = parseOrThrow(S.BranchQuery, query, 'query');
    const list = `${id}/messages`;
    const from = this.cursors.decode(caller.tenantId, list, q.cursor) ?? 0;
    return this.page(
      caller,
      list,
      await this.queries.execute(new GetActiveBranch(caller, id, from, q.limit ?? 100, q.last)),
    );
  }

  async message(id: string, messageId: string, caller: Caller) {
    return this.queries.execute(new GetMessage(caller, id, messageId));
  }

  async tree(id: string, caller: Caller) {
    return assertAnswerWithin(
      await this.queries.execute(new GetTree(caller, id)),
      this.config.limits.answerMaxBytes,
      '`…/messages` (the active branch) and `…/events`',
    );
  }

  async events(id: string, query: unknown, caller: Caller) {
    const q = parseOrThrow(S.EventsQuery, query, 'query');
    const list = `${id}/events`;
    const from = this.cursors.decode(caller.tenantId, list, q.cursor) ?? q.fromRevision ?? 0;
    return this.page(
      caller,
      list,
      await this.queries.execute(new ListEvents(caller, id, from, q.limit ?? 100)),
    );
  }

  /**
   * Heavy work of the tenant's (`HeavyWorkGate`) from the read to the stream's end: the read is
   * parsed in slices and the answer streamed a chunk at a time, so the loop stays free meanwhile.
   */
  async export(id: string, query: unknown, caller: Caller, reply: FastifyReply) {
    const q = parseOrThrow(S.ExportQuery, query, 'query');
    await this.gate.run(caller.tenantId, async () => {
      const stream = await this.exportStream(id, q, caller, reply);
      await new Promise<void>((done) => {
        stream.once('close', done);
        reply.raw.once('close', done);
      });
    });
  }

  private async exportStream(
    id: string,
    q: z.infer<typeof S.ExportQuery>,
    caller: Caller,
    reply: FastifyReply,
  ): Promise<Readable> {
    const scope = q.scope ?? (q.format === 'markdown' ? 'branch' : 'tree');
    const { conversation, messages } = await this.queries.execute(
      new GetBranchOrTree(caller, id, scope),
    );
    // A browser must not guess HTML from an export's content (user text may hold `<script>`).
    void reply.header('x-content-type-options', 'nosniff');
    if (q.format === 'claude-code' || q.format === 'pi') {
      const checkpoints = await this.queries.execute(new ListCheckpoints(caller, id));
      const out = exportSession(q.format, exportSource(conversation, messages, checkpoints));
      const stream = Readable.from(out.chunks());
      void reply
        .header('content-type', 'application/x-ndjson; charset=utf-8')
        .header('content-disposition', `attachment; filename="${out.fileName}"`)
        .header('arbor-export-report', reportHeader(out.report))
        .send(stream);
      return stream;
    }
    // Every format is streamed chunk by chunk (a line, a message): the answer is never one
    // string, so its size is bounded by neither V8's longest string nor a second copy in memory.
    const stream =
      q.format === 'jsonl'
        ? Readable.from(jsonLines(messages))
        : Readable.from(markdownChunks(conversation.title, messages));
    void reply
      .header(
        'content-type',
        q.format === 'jsonl'
          ? 'application/x-ndjson; charset=utf-8'
          : 'text/markdown; charset=utf-8',
      )
      .send(stream);
    return stream;
  }
}
