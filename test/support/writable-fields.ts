/**
 * Every field a client can write, derived from the OpenAPI document (the contract the API
 * validates with): the free-text leaves of each route's request body — a string with no pattern,
 * enum or const, or free JSON (metadata, tool inputs, schemas) — by path. What is bounded to an
 * id's shape (a pattern) is not free text. The erasure proof writes a marker into each of them;
 * a new free-text field shows up here without anyone listing it.
 *
 * Paths: `body.messages[].content[]<tool_use>.name` — `[]` an array's items, `{}` a record's
 * values, `<t>` the variant of a union whose `type` is `t`.
 */
import { buildOpenApiDocument } from '@arbor/contract';
import { needles } from './erasure';

type Schema = Record<string, unknown>;
type Doc = {
  paths: Record<string, Record<string, { operationId: string; requestBody?: unknown }>>;
  components: { schemas: Record<string, Schema> };
};

/** Built once (it takes about a second). */
let built: Doc | null = null;
const doc = (): Doc => (built ??= buildOpenApiDocument() as unknown as Doc);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const JSON_VALUE = '#/components/schemas/JsonValue';

/** Free JSON: any value, or an object of any values (what `JsonObject` / `JsonValue` are). */
const isFreeJson = (s: Schema): boolean =>
  s.$ref === JSON_VALUE ||
  (s.type === 'object' &&
    s.properties === undefined &&
    s.oneOf === undefined &&
    s.anyOf === undefined &&
    (s.additionalProperties === undefined ||
      s.additionalProperties === true ||
      (isObject(s.additionalProperties) && s.additionalProperties.$ref === JSON_VALUE)));

const isFreeString = (s: Schema): boolean =>
  (s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string'))) &&
  s.pattern === undefined &&
  s.enum === undefined &&
  s.const === undefined;

/** The variant tag of an object schema: its `type` property's constant, if it has one. */
const tagOf = (s: Schema): string | null => {
  const t = isObject(s.properties) ? (s.properties as Record<string, Schema>).type : undefined;
  return isObject(t) && typeof t.const === 'string' ? t.const : null;
};

const kindMatches = (s: Schema, value: unknown): boolean => {
  if (s.$ref === JSON_VALUE) return true;
  if (Array.isArray(s.type)) return s.type.some((t) => kindMatches({ ...s, type: t }, value));
  switch (s.type) {
    case 'string':
      return typeof value === 'string';
    case 'array':
      return Array.isArray(value);
    case 'object': {
      if (!isObject(value)) return false;
      if (isFreeJson(s)) return true;
      const tag = tagOf(s);
      if (tag === null ? value.type !== undefined : value.type !== tag) return false;
      // Variants with one tag (or none) differ by their properties: the value must fit them.
      const props = isObject(s.properties) ? Object.keys(s.properties) : [];
      const required = Array.isArray(s.required) ? (s.required as string[]) : [];
      return (
        required.every((k) => k in value) &&
        (s.additionalProperties !== false || Object.keys(value).every((k) => props.includes(k)))
      );
    }
    case 'boolean':
      return typeof value === 'boolean';
    case 'number':
    case 'integer':
      return typeof value === 'number';
    case 'null':
      return value === null;
    default:
      return s.anyOf !== undefined || s.oneOf !== undefined || s.allOf !== undefined;
  }
};

/**
 * Walks `schema`: without `value`, every free leaf's path; with it, the free leaves whose value
 * holds `marker` (raw or base64 at any alignment), following the value's shape through unions.
 */
const walk = (
  d: Doc,
  schema: Schema,
  path: string,
  out: Set<string>,
  guided: { value: unknown; forms: Buffer[] } | null,
  depth = 0,
): void => {
  if (depth > 40) return;
  const holds = (v: unknown) =>
    v !== undefined &&
    guided !== null &&
    guided.forms.some((f) => JSON.stringify(v).includes(f.toString()));
  const value = guided?.value;
  if (typeof schema.$ref === 'string' && schema.$ref !== JSON_VALUE) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    walk(d, { ...d.components.schemas[name], ...withoutRef(schema) }, path, out, guided, depth + 1);
    return;
  }
  if (isFreeJson(schema) || isFreeString(schema)) {
    if (guided === null || holds(value)) out.add(path);
    return;
  }
  const variants = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (variants !== undefined) {
    for (const v of variants) {
      const resolved = resolve(d, v);
      if (guided !== null && !kindMatches(resolved, value)) continue;
      walk(d, resolved, path, out, guided, depth + 1);
      if (guided !== null) return;
    }
    return;
  }
  if (Array.isArray(schema.allOf)) {
    for (const part of schema.allOf as Schema[]) walk(d, part, path, out, guided, depth + 1);
    return;
  }
  if (schema.type === 'array' && isObject(schema.items)) {
    const items = schema.items as Schema;
    if (guided === null) walk(d, items, `${path}[]`, out, null, depth + 1);
    else if (Array.isArray(value))
      for (const item of value)
        walk(d, items, `${path}[]`, out, { ...guided, value: item }, depth + 1);
    return;
  }
  if (isObject(schema.properties)) {
    const tag = tagOf(schema);
    const at = tag === null ? path : `${path}<${tag}>`;
    for (const [key, prop] of Object.entries(schema.properties as Record<string, Schema>)) {
      if (guided === null) walk(d, prop, `${at}.${key}`, out, null, depth + 1);
      else if (isObject(value) && value[key] !== undefined)
        walk(d, prop, `${at}.${key}`, out, { ...guided, value: value[key] }, depth + 1);
    }
    return;
  }
  if (isObject(schema.additionalProperties)) {
    const each = schema.additionalProperties as Schema;
    if (guided === null) walk(d, each, `${path}{}`, out, null, depth + 1);
    else if (isObject(value))
      for (const v of Object.values(value))
        walk(d, each, `${path}{}`, out, { ...guided, value: v }, depth + 1);
  }
};

const withoutRef = (s: Schema): Schema => {
  const { $ref: _ref, description: _d, ...rest } = s;
  return rest;
};

const resolve = (d: Doc, s: Schema): Schema =>
  typeof s.$ref === 'string' && s.$ref !== JSON_VALUE
    ? resolve(d, { ...d.components.schemas[s.$ref.replace('#/components/schemas/', '')] })
    : s;

const bodySchema = (op: { requestBody?: unknown }): Schema | null => {
  const rb = op.requestBody as { content?: Record<string, { schema?: Schema }> } | undefined;
  return rb?.content?.['application/json']?.schema ?? null;
};

/** `operationId body.path` of every free-text field of every request body. */
export const writableFields = (): Set<string> => {
  const d = doc();
  const out = new Set<string>();
  for (const ops of Object.values(d.paths)) {
    for (const op of Object.values(ops)) {
      const schema = bodySchema(op);
      if (schema === null) continue;
      const mine = new Set<string>();
      walk(d, schema, 'body', mine, null);
      for (const p of mine) out.add(`${op.operationId} ${p}`);
    }
  }
  return out;
};

/** The route template and operation a request goes to. */
export const operationOf = (
  method: string,
  url: string,
): { operationId: string; schema: Schema | null } | null => {
  const d = doc();
  const pathOnly = url.split('?')[0];
  for (const [template, ops] of Object.entries(d.paths)) {
    const re = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    const op = ops[method.toLowerCase()];
    if (op !== undefined && re.test(pathOnly)) {
      return { operationId: op.operationId, schema: bodySchema(op) };
    }
  }
  return null;
};

/** `operationId body.path` of each free field of this request's body that holds the marker. */
export const markedFields = (method: string, url: string, body: unknown, marker: string) => {
  const op = operationOf(method, url);
  const out = new Set<string>();
  if (op === null || op.schema === null || body === undefined) return out;
  const mine = new Set<string>();
  walk(doc(), op.schema, 'body', mine, { value: body, forms: needles(marker) });
  for (const p of mine) out.add(`${op.operationId} ${p}`);
  return out;
};
