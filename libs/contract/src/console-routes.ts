/** The read-only routes of the operator console: one conversation's chain verdict, the tenants. */
import { z } from 'zod';
import { Id } from './common';
import { type RouteSpec } from './routes';

export const VerifyVerdict = z
  .object({
    conversationId: Id,
    ok: z
      .boolean()
      .meta({ description: 'No finding (events written before the chain are not one)' }),
    events: z.number().int(),
    chained: z.number().int(),
    unchained: z.number().int(),
    lastRevision: z.number().int(),
    totals: z.object({
      modified: z.number().int(),
      removed: z.number().int(),
      reordered: z.number().int(),
      inserted: z.number().int(),
    }),
    findings: z.array(
      z.object({
        kind: z.enum(['modified', 'removed', 'reordered', 'inserted']),
        revision: z.number().int(),
        position: z.string(),
        detail: z.string(),
        missing: z.object({ from: z.number().int(), to: z.number().int() }).optional(),
      }),
    ),
  })
  .meta({ id: 'VerifyVerdict' });

export const TenantList = z
  .object({
    items: z.array(
      z.object({
        id: Id,
        name: z.string().nullable(),
        keys: z.number().int(),
        activeKeys: z.number().int(),
      }),
    ),
    truncated: z.boolean().meta({ description: 'More than 1,000 tenants: the first 1,000' }),
  })
  .meta({ id: 'TenantList' });

export const CONSOLE_ROUTES: readonly RouteSpec[] = [
  {
    method: 'get',
    path: '/v1/conversations/{id}/verify',
    operationId: 'verifyConversation',
    tag: 'conversations',
    auth: 'tenant',
    summary: "The hash-chain verdict of the conversation's events",
    description:
      'Every event of the stream recomputed from its fields with the audit secret (the verifier ' +
      'of `arbor verify`, over this one stream). At most 100 findings are listed; `totals` counts ' +
      'all. An event removed from the very end of a stream is seen only by the whole-log ' +
      '`arbor verify`. Changes nothing.',
    params: z.object({ id: Id }),
    responses: { 200: { description: 'The verdict', schema: VerifyVerdict } },
    errors: ['conversation_not_found', 'conversation_erased'],
  },
  {
    method: 'get',
    path: '/v1/tenants',
    operationId: 'listTenants',
    tag: 'tenants (admin)',
    auth: 'admin',
    summary: 'Every tenant: id, name, key counts (never secrets); at most 1,000',
    responses: { 200: { description: 'The tenants', schema: TenantList } },
    errors: [],
  },
];
