import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import {
  type RateDecision,
  type RateLimiterService,
  TenantDirectoryService,
} from '@arbor/application';
import { Problem } from '../problem/problem';

/**
 * The IETF httpapi RateLimit headers (draft-ietf-httpapi-ratelimit-headers): the policy — quota
 * `q` requests per window `w` seconds, the window being the time an empty bucket takes to refill —
 * and the bucket now: `r` requests left, `t` seconds until it is full again.
 */
export const rateLimitHeaders = (d: RateDecision): Record<string, string> => {
  const window = Math.max(1, Math.ceil(d.limit.burst / d.limit.ratePerSecond));
  return {
    'ratelimit-policy': `"tenant";q=${d.limit.burst};w=${window}`,
    ratelimit: `"tenant";r=${d.answer.remaining};t=${Math.ceil(d.answer.fullInMs / 1000)}`,
  };
};

/** The longest a refusal is held before it is answered. */
export const HOLD_MAX_MS = 250;

/**
 * When a refusal is answered: no sooner than the tenant's next token, and no sooner than one
 * token interval after the tenant's previous held refusal — so a tenant's refusals leave at about
 * its token rate, however many connections it floods with — but never later than `maxMs` from
 * now. `previousAt` is when the tenant's last held refusal is (or was) answered, 0 for none.
 */
export const holdUntil = (
  previousAt: number,
  now: number,
  retryAfterMs: number,
  intervalMs: number,
  maxMs: number = HOLD_MAX_MS,
): number => Math.min(now + maxMs, Math.max(now + retryAfterMs, previousAt + intervalMs));

/**
 * Per-tenant rate limits, in `onRequest` after authentication (before the body is read, so a
 * refused flood costs no parsing): each tenant-key request under /v1/ takes one token; an empty
 * bucket is `429 rate_limited` with `Retry-After` (whole seconds, at least 1), answered when the
 * next token is back or after HOLD_MAX_MS, whichever comes first. Admin calls and
 * unauthenticated ones (answered 401 by the hook before) are not counted.
 */
export const rateLimitRequests = (
  fastify: FastifyInstance,
  directory: TenantDirectoryService,
  limiter: RateLimiterService,
): void => {
  /** Per tenant: when its last held refusal is answered (tenants refused in the last 250 ms). */
  const heldUntil = new LRUCache<string, number>({ max: 100_000, ttl: HOLD_MAX_MS * 2 });
  fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0];
    if (!path.startsWith('/v1/') || /^\/v1\/(tenants|admin)(\/|$)/.test(path)) return;
    const auth = directory.authenticate(request.headers.authorization);
    if (!auth.ok) return;
    const decision = await limiter.take(auth.tenantId);
    if (decision === null) return;
    for (const [k, v] of Object.entries(rateLimitHeaders(decision))) reply.raw.setHeader(k, v);
    if (decision.answer.allowed) return;
    // Held (at most HOLD_MAX_MS): a client that sends again as soon as it is refused gets about
    // one refusal per token interval over all its connections, so a flood's refusals do not
    // queue ahead of other tenants' requests (bench:flood; bench/README.md).
    const now = Date.now();
    const at = holdUntil(
      heldUntil.get(auth.tenantId) ?? 0,
      now,
      decision.answer.retryAfterMs,
      1000 / decision.limit.ratePerSecond,
    );
    heldUntil.set(auth.tenantId, at);
    await new Promise((r) => setTimeout(r, at - now));
    const retryAfter = Math.max(1, Math.ceil(decision.answer.retryAfterMs / 1000));
    const problem = new Problem(
      'rate_limited',
      `This tenant may send ${decision.limit.ratePerSecond} requests per second ` +
        `(bursts of ${decision.limit.burst}); retry after ${retryAfter} s.`,
      { retryAfterSeconds: retryAfter },
    );
    const hasBody =
      request.headers['content-length'] !== undefined ||
      request.headers['transfer-encoding'] !== undefined;
    if (hasBody) void reply.header('connection', 'close');
    return reply
      .status(problem.status)
      .header('retry-after', String(retryAfter))
      .header('content-type', 'application/problem+json')
      .send(problem.body(path));
  });
};
