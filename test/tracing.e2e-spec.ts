/**
 * OpenTelemetry traces from the real app process: `arbor serve` started with the standard OTEL_*
 * variables pointing at a local HTTP server that receives the real OTLP/HTTP export requests
 * (`http/json`, parsed here). The spans must arrive with their names and attributes — the route
 * template, the status, the tenant id and the request id, never content — and the turn commit and
 * context assembly as children of their request's span.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { exchange } from './support/api';
import { ADMIN_KEY } from './support/harness';
import { call, freePort, type Replica, spawnReplica } from './support/scaled';
import { httpCall } from './support/http';

jest.setTimeout(180_000);

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}

const attr = (s: OtlpSpan, key: string): unknown => {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v === undefined ? undefined : Object.values(v)[0];
};

describe('OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT set)', () => {
  let server: http.Server;
  let dataDir: string;
  let app: Replica;
  const spans: OtlpSpan[] = [];
  const requests: { url: string; contentType: string }[] = [];
  let serviceNames: unknown[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        requests.push({ url: req.url ?? '', contentType: String(req.headers['content-type']) });
        const parsed = JSON.parse(body) as {
          resourceSpans: {
            resource: { attributes: { key: string; value: { stringValue?: string } }[] };
            scopeSpans: { spans: OtlpSpan[] }[];
          }[];
        };
        for (const rs of parsed.resourceSpans) {
          serviceNames = [
            ...serviceNames,
            rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue,
          ];
          for (const ss of rs.scopeSpans) spans.push(...ss.spans);
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      });
    });
    const port = await freePort();
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-otel-'));
    app = await spawnReplica(
      dataDir,
      {
        REDIS_URL: '',
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'arbor-test',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
      true,
    );
  });

  afterAll(async () => {
    await app?.kill();
    await new Promise<void>((r) => server?.close(() => r()));
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('exports a span per HTTP request (route template, status, tenant id, request id) and the turn commit and context assembly inside it', async () => {
    const tenant = await call(app.url, 'POST', '/v1/tenants', ADMIN_KEY, { name: 'otel' });
    const key = tenant.body.apiKey as string;
    const tenantId = tenant.body.id as string;
    expect((await call(app.url, 'POST', '/v1/conversations', key, { id: 'c1' })).status).toBe(201);
    const turn = await call(app.url, 'POST', '/v1/conversations/c1/turns', key, {
      messages: exchange('secret-words'),
    });
    expect(turn.status).toBe(201);
    const ctx = await call(app.url, 'POST', '/v1/conversations/c1/context', key, {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      budgetTokens: 200_000,
    });
    expect(ctx.status).toBe(200);
    const missing = await httpCall(app.url, 'GET', '/v1/conversations/nope', {
      key,
      headers: { 'x-request-id': 'otel-req-1' },
    });
    expect(missing.status).toBe(404);

    const find = (name: string) => spans.find((s) => s.name === name);
    for (let i = 0; i < 300; i++) {
      if (
        find('arbor.context.assemble') &&
        find('GET /v1/conversations/:id') &&
        find('POST /v1/conversations/:id/context')
      )
        break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.every((r) => r.url === '/v1/traces')).toBe(true);
    expect(requests[0].contentType).toContain('application/json');
    expect(serviceNames).toContain('arbor-test');

    const turnRequest = find('POST /v1/conversations/:id/turns') as OtlpSpan;
    expect(turnRequest).toBeDefined();
    expect(attr(turnRequest, 'http.route')).toBe('/v1/conversations/:id/turns');
    expect(attr(turnRequest, 'http.request.method')).toBe('POST');
    expect(Number(attr(turnRequest, 'http.response.status_code'))).toBe(201);
    expect(attr(turnRequest, 'arbor.tenant_id')).toBe(tenantId);
    expect(String(attr(turnRequest, 'arbor.request_id'))).toMatch(/^[0-9a-f-]{36}$/);

    const commit = find('arbor.turn.commit') as OtlpSpan;
    expect(commit).toBeDefined();
    expect(commit.traceId).toBe(turnRequest.traceId);
    expect(commit.parentSpanId).toBe(turnRequest.spanId);
    expect(attr(commit, 'arbor.tenant_id')).toBe(tenantId);
    expect(attr(commit, 'arbor.conversation_id')).toBe('c1');
    expect(attr(commit, 'arbor.turn.replayed')).toBe(false);

    const contextRequest = find('POST /v1/conversations/:id/context') as OtlpSpan;
    const assemble = find('arbor.context.assemble') as OtlpSpan;
    expect(assemble.parentSpanId).toBe(contextRequest.spanId);
    expect(Number(attr(contextRequest, 'http.response.status_code'))).toBe(200);

    const notFound = find('GET /v1/conversations/:id') as OtlpSpan;
    expect(attr(notFound, 'arbor.request_id')).toBe('otel-req-1');
    expect(Number(attr(notFound, 'http.response.status_code'))).toBe(404);

    // No content in any span: the turn's text appears nowhere in what was exported.
    expect(JSON.stringify(spans)).not.toContain('secret-words');
  });
});
