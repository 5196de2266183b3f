import { Controller, Get, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ARBOR_CONFIG, type ArborConfig, ConversationStreamsService } from '@arbor/application';
import * as S from '@arbor/contract';
import { Inject } from '@nestjs/common';
import { AuthGuard } from '../auth/auth.guard';
import { type Caller, CallerParam } from '../auth/caller';
import { parseOrThrow } from '../validation/zod';
import { IdParam } from '../validation/id-param';

/** One SSE frame: the revision as `id:`, the event as one line of JSON (JSON has no raw newline). */
const frame = (e: { revision: number }): string =>
  `id: ${e.revision}\ndata: ${JSON.stringify(e)}\n\n`;

/**
 * `GET /v1/conversations/:id/stream`: Server-Sent Events of a conversation's events as they are
 * projected. Errors before the stream starts (404, 429, 400) are ordinary problem+json answers;
 * once it has started the reply is the raw socket's, written frame by frame with backpressure
 * (the next event is read only after the socket drained the previous one).
 */
@UseGuards(AuthGuard)
@Controller('v1/conversations')
export class StreamController {
  constructor(
    private readonly streams: ConversationStreamsService,
    @Inject(ARBOR_CONFIG) private readonly config: ArborConfig,
  ) {}

  @Get(':id/stream')
  async stream(
    @IdParam('id') id: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @CallerParam() caller: Caller,
  ): Promise<void> {
    const headers = parseOrThrow(
      S.LastEventIdHeader,
      { 'last-event-id': request.headers['last-event-id'] },
      'headers',
    );
    const raw = headers['last-event-id'];
    const live = await this.streams.follow(caller, id, raw === undefined ? null : Number(raw));
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      // Proxies (nginx) must pass each frame through at once.
      'x-accel-buffering': 'no',
    });
    // The stream's first line: how long a client should wait before reconnecting.
    res.write('retry: 2000\n\n');
    const heartbeat = setInterval(() => {
      if (!res.writableNeedDrain) res.write(': heartbeat\n\n');
    }, this.config.streams.heartbeatMs);
    const closed = (): void => live.close();
    request.raw.once('close', closed);
    res.once('close', closed);
    try {
      for await (const event of live.events()) {
        if (res.destroyed) break;
        if (!res.write(frame(event))) {
          await new Promise<void>((resolve) => {
            const done = (): void => {
              res.off('drain', done);
              res.off('close', done);
              resolve();
            };
            res.once('drain', done);
            res.once('close', done);
          });
        }
      }
    } catch {
      // The log could not be read (e.g. the store closing on shutdown): end the stream; the
      // client reconnects with Last-Event-ID and misses nothing.
    } finally {
      clearInterval(heartbeat);
      live.close();
      request.raw.off('close', closed);
      if (!res.destroyed) res.end();
    }
  }
}
