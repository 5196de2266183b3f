/**
 * The HTTP edge, hardened: one Authorization header or 400, no content coding taken unread, a
 * request id on every answer (framing errors too), /docs under the console's headers, no source
 * map served, and the same answer for an erased or unknown conversation whoever reads it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { assistant, type Client, clientFor, user } from './support/api';
import { describeWithBrowser, launchBrowser } from './support/browser';
import { ADMIN_KEY, type Harness, startHarness } from './support/harness';
import { rawRequest } from './support/raw-http';

const ROOT = path.resolve(__dirname, '..');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('the HTTP edge', () => {
  let h: Harness;
  let a: Client;
  let b: Client;
  let tenantA: string;
  let consoleDir: string;

  beforeAll(async () => {
    consoleDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-console-build-'));
    // A build as `npm run build` makes it, over a folder that still holds an old source map.
    fs.writeFileSync(path.join(consoleDir, 'app.js.map'), '{"version":3,"sources":["main.tsx"]}');
    execFileSync(process.execPath, [path.join(ROOT, 'apps/console/build.mjs')], {
      cwd: ROOT,
      env: { ...process.env, ARBOR_CONSOLE_DIR: consoleDir },
    });
    // The server looks for the console in ARBOR_CONSOLE_DIR of its process (this one).
    process.env.ARBOR_CONSOLE_DIR = consoleDir;
    h = await startHarness();
    const ta = await h.createTenant('a');
    tenantA = ta.id;
    a = clientFor(h, ta.apiKey);
    b = clientFor(h, (await h.createTenant('b')).apiKey);
  });
  afterAll(async () => {
    await h?.destroy();
    delete process.env.ARBOR_CONSOLE_DIR;
    fs.rmSync(consoleDir, { recursive: true, force: true });
  });

  const get = (headers: string) =>
    rawRequest(
      h.baseUrl,
      `GET /v1/conversations HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`,
    );

  it('two Authorization headers are 400 malformed_header, whichever order, valid or not', async () => {
    for (const pair of [
      [a.key, b.key],
      [b.key, a.key],
      [a.key, a.key],
      [a.key, 'nope'],
      ['nope', a.key],
    ]) {
      const r = await get(pair.map((k) => `Authorization: Bearer ${k}\r\n`).join(''));
      expect([r.status, JSON.parse(r.body).code]).toEqual([400, 'malformed_header']);
      expect(r.body).not.toContain('"items"');
    }
    // The admin routes too, and a differently cased second header.
    const admin = await rawRequest(
      h.baseUrl,
      `GET /v1/tenants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_KEY}\r\n` +
        `authorization: Bearer ${a.key}\r\nConnection: close\r\n\r\n`,
    );
    expect(admin.status).toBe(400);
    const one = await get(`Authorization: Bearer ${a.key}\r\n`);
    expect(one.status).toBe(200);
  });

  it('a content coding the server does not decode is 415, nothing written', async () => {
    const before = (await a.get('/v1/conversations')).body.items.length;
    const plain = JSON.stringify({ title: 'coded' });
    for (const [coding, body] of [
      ['gzip', plain],
      ['gzip', gzipSync(plain)],
      ['br', plain],
      ['identity, gzip', plain],
      ['x-unknown', plain],
    ] as const) {
      const r = await fetch(`${h.baseUrl}/v1/conversations`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${a.key}`,
          'content-type': 'application/json',
          'content-encoding': coding,
        },
        body,
      });
      const answer = (await r.json()) as { code: string; detail: string };
      expect([coding, r.status, answer.code]).toEqual([coding, 415, 'unsupported_media_type']);
      expect(answer.detail).toContain('Content-Encoding');
    }
    expect((await a.get('/v1/conversations')).body.items.length).toBe(before);
    const identity = await h.call('POST', '/v1/conversations', {
      key: a.key,
      body: { title: 'plain' },
      headers: { 'content-encoding': 'identity' },
    });
    expect(identity.status).toBe(201);
  });

  it('framing errors and router errors carry an X-Request-Id like every answer', async () => {
    const nul = await rawRequest(
      h.baseUrl,
      `GET /v1/conversations HTTP/1.1\r\nHost: x\r\nX-Thing: a\u0000b\r\n\r\n`,
    );
    const framing = await rawRequest(
      h.baseUrl,
      `POST /v1/conversations HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n` +
        `Transfer-Encoding: chunked\r\n\r\n{}`,
    );
    const huge = await rawRequest(
      h.baseUrl,
      `GET /v1/conversations HTTP/1.1\r\nHost: x\r\nX-Big: ${'k'.repeat(100_000)}\r\n\r\n`,
    );
    for (const r of [nul, framing, huge]) {
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.headers['x-request-id']).toMatch(UUID);
    }
    expect(nul.headers['x-request-id']).not.toBe(framing.headers['x-request-id']);
    // A path parameter over the router's limit: answered by the router, before any hook.
    const long = await h.call('GET', `/v1/conversations/${'x'.repeat(600)}`, { key: a.key });
    expect(long.status).toBe(414);
    expect(long.headers.get('x-request-id')).toMatch(UUID);
    const malformed = await h.call('GET', '/v1/conversations/%E0%A4%A', { key: a.key });
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('x-request-id')).toMatch(UUID);
  });

  it('/docs has the console headers (CSP, frame-ancestors, nosniff); no source map is served', async () => {
    const consolePage = await fetch(`${h.baseUrl}/console/`);
    expect(consolePage.status).toBe(200);
    for (const url of ['/docs', '/docs/', '/docs/openapi.json', '/docs/swagger-ui-init.js']) {
      const r = await fetch(h.baseUrl + url);
      expect([url, r.status]).toEqual([url, 200]);
      const csp = r.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("default-src 'none'");
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('referrer-policy')).toBe(consolePage.headers.get('referrer-policy'));
    }
    expect(fs.existsSync(path.join(consoleDir, 'app.js.map'))).toBe(false);
    const app = await fetch(`${h.baseUrl}/console/app.js`);
    expect(app.status).toBe(200);
    expect(await app.text()).not.toContain('sourceMappingURL');
    // Even a stale map left in a served folder is not served.
    fs.writeFileSync(path.join(consoleDir, 'app.js.map'), '{"version":3}');
    expect((await fetch(`${h.baseUrl}/console/app.js.map`)).status).toBe(404);
    fs.rmSync(path.join(consoleDir, 'app.js.map'));
  });

  it('the admin reading an erased conversation gets the 410 its tenant gets, route by route', async () => {
    const id = await a.start({ title: 'to erase' });
    await a.turn(id, null, [user('q'), assistant('a')]);
    expect((await h.call('DELETE', a.conv(id), { key: a.key })).status).toBe(200);
    const admin = `/v1/admin/tenants/${tenantA}/conversations/${id}`;
    for (const route of [
      '',
      '/tree',
      '/messages',
      '/checkpoints',
      '/export',
      '/verify',
      '/contexts',
      '/events',
      '/replay?revision=1',
    ]) {
      const mine = await a.get(a.conv(id, route));
      const theirs = await h.call('GET', admin + route, { key: ADMIN_KEY });
      const strip = (body: Record<string, unknown>) => {
        const { instance: _instance, ...rest } = body;
        return rest;
      };
      expect([route, theirs.status]).toEqual([route, mine.status]);
      if (mine.status >= 400) expect(strip(theirs.body)).toEqual(strip(mine.body));
    }
  });

  it('an unknown conversation answers with the same detail, with or without summarize', async () => {
    const url = a.conv('no-such-conversation', '/tip');
    const plain = await a.put(url, { messageId: 'm1' });
    const summarized = await a.put(url, { messageId: 'm1', summarize: true });
    const withInstruction = await a.put(url, {
      messageId: 'm1',
      summarize: { instruction: 'keep it short' },
    });
    expect(plain.status).toBe(404);
    expect(plain.body.detail).toEqual(expect.any(String));
    for (const r of [summarized, withInstruction]) {
      expect([r.status, r.body.code, r.body.detail]).toEqual([
        404,
        'conversation_not_found',
        plain.body.detail,
      ]);
    }
    // And every other route that finds it out in the application layer.
    for (const [method, route, body] of [
      ['GET', '/draft', undefined],
      ['GET', '/context/report', undefined],
      ['GET', '/replay?revision=0', undefined],
      ['POST', '/context', { provider: 'anthropic', model: 'm', budgetTokens: 10_000 }],
    ] as const) {
      const r = await h.call(method, a.conv('no-such-conversation', route), { key: a.key, body });
      expect([route, r.status, r.body.detail]).toEqual([route, 404, plain.body.detail]);
    }
  });
});

describeWithBrowser('/docs under its CSP (Chromium)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.destroy();
  });

  it('Swagger UI still renders the document, with no script blocked', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      const violations: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
      });
      await page.goto(`${h.baseUrl}/docs`);
      await page.waitForSelector('.swagger-ui .info .title', { timeout: 30_000 });
      expect(await page.textContent('.swagger-ui .info .title')).toContain('Arbor');
      expect(violations.filter((v) => /script/i.test(v))).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
