import { PassThrough } from 'node:stream';
import Fastify from 'fastify';
import { MetricsService } from '@arbor/application';
import { observeRequests } from './observe';
import { fastifyLogging, serviceLogger } from './logger';
import { requestIdOf } from './request-id';

describe('observeRequests (a real Fastify server over real HTTP)', () => {
  it('writes one JSON access-log line per answer carrying the same request id as the answer', async () => {
    const out = new PassThrough();
    const lines: string[] = [];
    out.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean)));
    const fastify = Fastify({
      genReqId: requestIdOf,
      requestIdHeader: false,
      ...fastifyLogging(serviceLogger('info', out)),
    });
    observeRequests(fastify, new MetricsService());
    fastify.get('/things/:id', async () => ({ ok: true }));
    await fastify.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = fastify.server.address() as { port: number };
      const a = await fetch(`http://127.0.0.1:${port}/things/7`, {
        headers: { 'x-request-id': 'caller-1' },
      });
      const b = await fetch(`http://127.0.0.1:${port}/missing`);
      await new Promise((r) => setTimeout(r, 50));
      const logged = lines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.msg === 'request');
      expect(logged).toHaveLength(2);
      expect(logged[0]).toMatchObject({
        msg: 'request',
        requestId: 'caller-1',
        route: '/things/:id',
        status: 200,
      });
      expect(a.headers.get('x-request-id')).toBe('caller-1');
      expect(logged[1]).toMatchObject({ route: 'unmatched', status: 404 });
      expect(logged[1].requestId).toBe(b.headers.get('x-request-id'));
    } finally {
      await fastify.close();
    }
  });

  it('logs nothing at LOG_LEVEL=silent', async () => {
    const out = new PassThrough();
    let bytes = 0;
    out.on('data', (d: Buffer) => (bytes += d.length));
    const fastify = Fastify({
      genReqId: requestIdOf,
      ...fastifyLogging(serviceLogger('silent', out)),
    });
    observeRequests(fastify, new MetricsService());
    await fastify.listen({ port: 0, host: '127.0.0.1' });
    const { port } = fastify.server.address() as { port: number };
    await fetch(`http://127.0.0.1:${port}/x`);
    await fastify.close();
    expect(bytes).toBe(0);
  });
});
