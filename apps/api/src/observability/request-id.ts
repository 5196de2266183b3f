import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** An incoming `X-Request-Id` is kept when it is short printable token text; else one is made. */
const SANE = /^[A-Za-z0-9._:/+=-]{1,128}$/;

/** Fastify's `genReqId`: the caller's id when sane, else a fresh UUID. */
export const requestIdOf = (req: IncomingMessage): string => {
  const raw = req.headers['x-request-id'];
  const v = Array.isArray(raw) ? raw[0] : raw;
  return v !== undefined && SANE.test(v) ? v : randomUUID();
};
