import { createHash } from 'node:crypto';
import {
  applyDecorators,
  type CallHandler,
  type ExecutionContext,
  Inject,
  Injectable,
  type NestInterceptor,
  SetMetadata,
  UseInterceptors,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { from, mergeMap, type Observable, of } from 'rxjs';
import { createKeyedQueue } from '@arbor/event-store';
import { type ArborRequest } from '../auth/caller';
import { IDEMPOTENCY_STORE, IdempotencyStore } from '@arbor/application';
import { Problem } from '../problem/problem';

export const REPLAYED_HEADER = 'idempotent-replayed';

/**
 * The `Idempotency-Key` request header (IETF httpapi draft): an sf-string (`"…"`) or, as most
 * clients send it, the bare token; 1-255 printable ASCII characters.
 */
export const parseIdempotencyKey = (raw: string | string[] | undefined): string | null => {
  if (raw === undefined) return null;
  const v = Array.isArray(raw) ? raw.join(',') : raw;
  const m =
    /^"([\x20-\x21\x23-\x5b\x5d-\x7e]{1,255})"$/.exec(v) ?? /^([\x21-\x7e]{1,255})$/.exec(v);
  if (!m || Array.isArray(raw)) {
    throw new Problem(
      'validation_failed',
      'headers.idempotency-key: 1-255 printable ASCII characters, once',
      {
        errors: [
          {
            path: 'headers.idempotency-key',
            code: 'invalid_idempotency_key',
            message: '1-255 printable ASCII characters, once',
          },
        ],
      },
    );
  }
  return m[1];
};

const reused = () =>
  new Problem(
    'idempotency_key_reused',
    'This Idempotency-Key was first sent with another method, path or body.',
  );

/**
 * A route whose answer holds a secret shown once (an API key): the memo keeps the answer without
 * it, and a replay is `409 secret_shown_once` naming the ids, never the secret again. `subject`
 * names the tenant the answer is about, so that tenant's key revocation or erasure forgets it.
 */
export interface SecretAnswer {
  readonly secret: string;
  readonly subject: (request: FastifyRequest, answer: Record<string, unknown>) => string | null;
}

const SECRET_ANSWER = Symbol('arbor.idempotency.secret');

interface Pending {
  tenant: string;
  key: string;
  fingerprint: string;
  secret: SecretAnswer | null;
  release: () => void;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the memo keeps of an answer: without the secret field, with the tenant it is about. */
export const memoOf = (
  request: FastifyRequest,
  payload: string,
  secret: SecretAnswer | null,
): { body: string; subject: string | null } => {
  if (secret === null) return { body: payload, subject: null };
  const answer: unknown = JSON.parse(payload);
  if (!isRecord(answer)) return { body: payload, subject: null };
  const { [secret.secret]: _shown, ...kept } = answer;
  return { body: JSON.stringify(kept), subject: secret.subject(request, answer) };
};

const shownOnce = (secret: SecretAnswer, kept: unknown): Problem => {
  const { [secret.secret]: _never, ...ids } = isRecord(kept) ? kept : {};
  return new Problem(
    'secret_shown_once',
    `The first answer to this Idempotency-Key carried \`${secret.secret}\`, which is shown once and ` +
      'not kept. If it was lost, revoke that key and issue another.',
    ids,
  );
};

/**
 * Same key and same request → the first answer again (its status and body, plus
 * `Idempotent-Replayed: true`), without running the command; same key, another request →
 * `422 idempotency_key_reused`. Requests with one key run one at a time (a per-key queue), so 50
 * concurrent identical forks make one fork and 49 replays. Across processes sharing the data dir,
 * a row claim in `idempotency.sqlite` (taken under BEGIN IMMEDIATE) decides who runs a key; a
 * same-key request reaching another process meanwhile is `409 idempotency_in_progress`. Only success answers are kept: a refused
 * request wrote nothing, so running it again is safe and may succeed. A secret in an answer (an
 * API key) is never kept: its replay is `409 secret_shown_once`.
 */
@Injectable()
export class Idempotency {
  private readonly queue = createKeyedQueue();
  private readonly pending = new WeakMap<object, Pending>();

  constructor(@Inject(IDEMPOTENCY_STORE) private readonly store: IdempotencyStore) {}

  /** The hooks that store an answer once it is serialized and let the next same-key request in. */
  install(fastify: FastifyInstance): void {
    fastify.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload, done) => {
      const p = this.pending.get(request.raw);
      if (p !== undefined) {
        this.pending.delete(request.raw);
        try {
          if (reply.statusCode >= 200 && reply.statusCode < 300 && typeof payload === 'string') {
            this.store.put(p.tenant, p.key, {
              fingerprint: p.fingerprint,
              status: reply.statusCode,
              ...memoOf(request, payload, p.secret),
            });
          }
        } finally {
          p.release();
        }
      }
      done(null, payload);
    });
    fastify.addHook('onResponse', (request: FastifyRequest, _reply: FastifyReply, done) => {
      const p = this.pending.get(request.raw);
      if (p !== undefined) {
        this.pending.delete(request.raw);
        p.release();
      }
      done();
    });
  }

  /** Waits for the key, then answers from the store or lets the request run holding it. */
  async enter(
    request: ArborRequest,
    reply: FastifyReply,
    key: string,
    secret: SecretAnswer | null = null,
  ): Promise<{ replay: unknown } | null> {
    const tenant = request.caller?.tenantId || `admin:${request.caller?.keyId ?? ''}`;
    const fingerprint = createHash('sha256')
      .update(`${request.method} ${request.url.split('?')[0]}\n`)
      .update(JSON.stringify(request.body ?? null) ?? 'null')
      .digest('hex');
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await new Promise<void>((entered) => {
      void this.queue.run(`${tenant}\n${key}`, () => {
        entered();
        return held;
      });
    });
    let claim;
    try {
      claim = this.store.claim(tenant, key, fingerprint);
    } catch (e) {
      release();
      throw e;
    }
    if (claim.kind === 'in_progress') {
      release();
      if (claim.fingerprint !== fingerprint) throw reused();
      // The IETF draft's answer to a retry while the first request is still being processed.
      throw new Problem(
        'idempotency_in_progress',
        'A request with this Idempotency-Key is being processed by another server; retry later.',
      );
    }
    if (claim.kind === 'answer') {
      release();
      const stored = claim.answer;
      if (stored.fingerprint !== fingerprint) throw reused();
      void reply.header(REPLAYED_HEADER, 'true');
      if (secret !== null) throw shownOnce(secret, JSON.parse(stored.body));
      void reply.status(stored.status);
      return { replay: JSON.parse(stored.body) as unknown };
    }
    this.pending.set(request.raw, {
      tenant,
      key,
      fingerprint,
      secret,
      release: () => {
        try {
          this.store.release(tenant, key);
        } finally {
          release();
        }
      },
    });
    return null;
  }
}

@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly idempotency: Idempotency,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<ArborRequest>();
    const key = parseIdempotencyKey(request.headers['idempotency-key']);
    if (key === null) return next.handle();
    const secret =
      this.reflector.get<SecretAnswer | undefined>(SECRET_ANSWER, context.getHandler()) ?? null;
    return from(
      this.idempotency.enter(request, http.getResponse<FastifyReply>(), key, secret),
    ).pipe(mergeMap((r) => (r === null ? next.handle() : of(r.replay))));
  }
}

/**
 * Marks a creating POST as taking `Idempotency-Key` (documented in the contract's route table);
 * `secret`: its answer holds a secret the memo must not keep.
 */
export const Idempotent = (secret?: SecretAnswer) =>
  applyDecorators(
    ...(secret !== undefined ? [SetMetadata(SECRET_ANSWER, secret)] : []),
    UseInterceptors(IdempotencyInterceptor),
  );
