import { compileErrors, validate } from '@readme/openapi-parser';
import { buildOpenApiDocument } from './openapi';
import { PROBLEM_CODES } from './problems';
import { ROUTES } from './routes';

type Json = Record<string, unknown>;
const doc = buildOpenApiDocument() as unknown as Json & {
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json>; securitySchemes: Record<string, Json> };
};

/** Follows a local `$ref` (`#/components/schemas/X`) to its schema. */
const resolve = (schema: Json): Json => {
  let s = schema;
  for (let i = 0; typeof s.$ref === 'string' && i < 10; i++) {
    s = doc.components.schemas[(s.$ref as string).replace('#/components/schemas/', '')];
  }
  return s;
};

/** A schema that says nothing (`{}` or only words) accepts anything. */
const isEmpty = (schema: Json): boolean => {
  const s = resolve(schema);
  const keys = Object.keys(s).filter((k) => !['description', 'example', 'default'].includes(k));
  return keys.length === 0;
};

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op })),
  );

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1', async () => {
    const result = await validate(structuredClone(doc) as never);
    if (!result.valid) throw new Error(compileErrors(result));
    expect(doc.openapi).toBe('3.1.0');
  });

  it('has one operation per route of the table, each with an operationId', () => {
    expect(
      operations()
        .map(({ method, path }) => `${method} ${path}`)
        .sort(),
    ).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
    const ids = operations().map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives every JSON request body and every JSON answer a schema that is not {}', () => {
    const empty: string[] = [];
    for (const { path, method, op } of operations()) {
      const body = (op.requestBody as Json | undefined)?.content as
        Record<string, Json> | undefined;
      for (const [type, media] of Object.entries(body ?? {})) {
        if (isEmpty(media.schema as Json)) empty.push(`${method} ${path} request ${type}`);
      }
      for (const [status, answer] of Object.entries(op.responses as Record<string, Json>)) {
        const content = answer.content as Record<string, Json> | undefined;
        if (!content && status !== '204') empty.push(`${method} ${path} ${status}: no content`);
        for (const [type, media] of Object.entries(content ?? {})) {
          if (isEmpty(media.schema as Json)) empty.push(`${method} ${path} ${status} ${type}`);
          if (type !== 'application/json') continue;
          if (resolve(media.schema as Json).type !== 'object')
            empty.push(`${method} ${path} ${status}: not an object`);
        }
      }
    }
    expect(empty).toEqual([]);
  });

  it('types the messages of a turn as blocks, every block and message field typed', () => {
    const body = resolve(doc.components.schemas.CommitTurnBody);
    const messages = (body.properties as Record<string, Json>).messages;
    const message = resolve(messages.items as Json);
    expect(message.required).toEqual(expect.arrayContaining(['role', 'content']));
    const block = resolve((message.properties as Record<string, Json>).content.items as Json);
    const variants = ((block.oneOf ?? block.anyOf) as Json[]).map(resolve);
    const types = variants.map((v) => (v.properties as Record<string, Json>).type.const);
    expect(types.sort()).toEqual(
      [
        'image',
        'provider',
        'reasoning',
        'redacted_thinking',
        'text',
        'thinking',
        'tool_result',
        'tool_use',
      ].sort(),
    );
    // Every message and block schema, as a request and as an answer: no property is `{}`.
    const names = Object.keys(doc.components.schemas).filter((n) =>
      /Block|^Message|^BranchMessage/.test(n),
    );
    expect(names.length).toBeGreaterThan(12);
    for (const name of names) {
      const schema = resolve(doc.components.schemas[name]);
      const variantsOf = (schema.oneOf ?? schema.anyOf ?? [schema]) as Json[];
      for (const v of variantsOf.map(resolve)) {
        for (const [prop, s] of Object.entries((v.properties ?? {}) as Record<string, Json>)) {
          if (prop === 'metadata' || prop === 'input') continue; // free-form JSON objects
          expect({ name, prop, empty: isEmpty(s) }).toEqual({ name, prop, empty: false });
        }
      }
    }
  });

  it('does not mark a defaulted field required, and keys are opaque bearer tokens', () => {
    const context = resolve(doc.components.schemas.ContextBody);
    expect(context.required).not.toContain('mode');
    expect((context.properties as Record<string, Json>).mode.default).toBe('auto');
    for (const scheme of Object.values(doc.components.securitySchemes)) {
      expect(scheme).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(scheme).not.toHaveProperty('bearerFormat');
    }
  });

  it('answers lists as {items, next?}', () => {
    for (const name of ['ConversationPage', 'BranchPage', 'EventsPage', 'ContextsPage']) {
      const s = resolve(doc.components.schemas[name]);
      expect(Object.keys(s.properties as Json).sort()).toEqual(['items', 'next']);
      expect(s.required).toEqual(['items']);
    }
  });

  it('documents every error answer as problem+json with its codes enumerated by status', () => {
    for (const { path, method, op } of operations()) {
      for (const [status, answer] of Object.entries(op.responses as Record<string, Json>)) {
        if (Number(status) < 400) continue;
        const schema = (answer.content as Record<string, Json>)['application/problem+json']
          .schema as Json;
        const codes = ((schema.properties as Record<string, Json>).code.enum ?? []) as string[];
        expect({ path, method, status, empty: codes.length === 0 }).toMatchObject({ empty: false });
        for (const code of codes) {
          expect([
            path,
            method,
            code,
            PROBLEM_CODES[code as keyof typeof PROBLEM_CODES].status,
          ]).toEqual([path, method, code, Number(status)]);
        }
      }
      expect(Object.keys(op.responses as Json)).toEqual(
        expect.arrayContaining(path === '/health' ? ['500'] : ['401', '500']),
      );
    }
  });
});
