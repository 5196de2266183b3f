/**
 * The wire contract against the running app: every route Nest serves has its operation in the
 * OpenAPI document (and no operation lacks its route), `/docs/openapi.json` serves the generated
 * document, and one call per operation reaches each documented 2xx answer plus the common error
 * answers, every answer checked against the document by the shared client (support/contract-check).
 */
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { buildOpenApiDocument, ROUTES } from '@arbor/contract';
import { walkCommonErrors, walkEveryRoute } from './support/every-route';
import { checkAnswer, ContractMismatch, reachedRoutes } from './support/contract-check';
import { type Harness, startHarness } from './support/harness';

/** `METHOD /path/{param}` of every route the Nest app registered, read from its controllers. */
const nestRoutes = (h: Harness): string[] => {
  const out: string[] = [];
  const join = (...parts: string[]) =>
    '/' +
    parts
      .flatMap((p) => p.split('/'))
      .filter((p) => p !== '')
      .map((p) => (p.startsWith(':') ? `{${p.slice(1)}}` : p))
      .join('/');
  for (const module of h.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const cls = wrapper.metatype as (new (...args: never[]) => unknown) | null;
      if (!cls) continue;
      const base = String(Reflect.getMetadata(PATH_METADATA, cls) ?? '');
      for (const name of Object.getOwnPropertyNames(cls.prototype)) {
        const fn = (cls.prototype as Record<string, unknown>)[name];
        if (typeof fn !== 'function' || name === 'constructor') continue;
        const method = Reflect.getMetadata(METHOD_METADATA, fn) as RequestMethod | undefined;
        const path = Reflect.getMetadata(PATH_METADATA, fn) as string | undefined;
        if (method === undefined || path === undefined) continue;
        out.push(`${RequestMethod[method]} ${join(base, path)}`);
      }
    }
  }
  return out.sort();
};

describe('the wire contract (OpenAPI document) against the app', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('documents exactly the routes the app serves', () => {
    const documented = ROUTES.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort();
    expect(nestRoutes(h)).toEqual(documented);
  });

  it('the check refuses an answer the document does not allow', () => {
    const ok = JSON.stringify({ status: 'ok' });
    expect(() => checkAnswer('GET', '/health', 200, 'application/json', ok)).not.toThrow();
    const extra = JSON.stringify({ status: 'ok', store: { kind: 'sqlite', position: null } });
    expect(() => checkAnswer('GET', '/health', 200, 'application/json', extra)).toThrow(
      ContractMismatch,
    );
    expect(() => checkAnswer('GET', '/health', 201, 'application/json', ok)).toThrow(
      /no 201 answer/,
    );
    const problem = (code: string) =>
      JSON.stringify({ type: 't', title: 't', status: 404, code, instance: '/x' });
    const url = '/v1/conversations/c1/retry';
    const type = 'application/problem+json';
    expect(() => checkAnswer('GET', url, 404, type, problem('nothing_to_retry'))).not.toThrow();
    expect(() => checkAnswer('GET', url, 404, type, problem('checkpoint_not_found'))).toThrow(
      ContractMismatch,
    );
  });

  it('serves the generated document at /docs/openapi.json and the UI at /docs', async () => {
    const r = await h.call('GET', '/docs/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
    const ui = await h.call('GET', '/docs');
    expect(ui.status).toBe(200);
    expect(ui.text).toContain('swagger');
  });

  it('reaches every documented 2xx answer, each matching its schema', async () => {
    await walkEveryRoute({ call: h.call, streamBase: h.baseUrl });

    const missing = ROUTES.flatMap((r) =>
      Object.keys(r.responses).map((s) => `${r.method.toUpperCase()} ${r.path} ${s}`),
    ).filter((k) => !reachedRoutes().has(k));
    expect(missing).toEqual([]);
  });

  it('answers the common errors of every route as documented', async () => {
    await walkCommonErrors({ call: h.call });
    expect([...reachedRoutes()].filter((k) => / 4\d\d$/.test(k)).length).toBeGreaterThan(30);
  });
});
