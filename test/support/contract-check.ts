/**
 * Every answer an e2e test receives through the shared clients (`Harness.call`, the spawned
 * server's `call`) is checked against the OpenAPI document generated from @arbor/contract: the
 * route (method + path template), the status (must be documented for the route) and the body
 * (the JSON Schema of that status and content type). A mismatch throws in the test that made the
 * call, so no answer can drift from the document. Reached routes are recorded (`reachedRoutes`),
 * and appended to `$ARBOR_CONTRACT_REPORT` when that names a file.
 */
import fs from 'node:fs';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument } from '@arbor/contract';

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
type PathItem = Partial<Record<string, Operation>>;
interface Doc {
  paths: Record<string, PathItem>;
}

const DOC_ID = 'arbor-openapi.json';
let state:
  | {
      doc: Doc;
      ajv: Ajv2020;
      routes: { template: string; regex: RegExp; params: number }[];
      validators: Map<string, ValidateFunction>;
    }
  | undefined;

const load = () => {
  if (state) return state;
  const doc = buildOpenApiDocument() as unknown as Doc;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ $id: DOC_ID, ...(doc as object) });
  const routes = Object.keys(doc.paths)
    .map((template) => ({
      template,
      regex: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      params: (template.match(/\{/g) ?? []).length,
    }))
    // A literal segment wins over a parameter (e.g. `…/context/report` over `…/{x}`).
    .sort((a, b) => a.params - b.params);
  state = { doc, ajv, routes, validators: new Map() };
  return state;
};

const pointer = (...segments: string[]): string =>
  segments.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The path template of a concrete request path, or null when the document has none. */
export const routeOf = (method: string, path: string): string | null => {
  const { doc, routes } = load();
  const m = method.toLowerCase();
  return (
    routes.find((r) => r.regex.test(path) && doc.paths[r.template][m] !== undefined)?.template ??
    null
  );
};

const reached = new Set<string>();

/** `METHOD template status` of every answer checked in this test file. */
export const reachedRoutes = (): ReadonlySet<string> => reached;

export class ContractMismatch extends Error {}

/**
 * Checks one answer. Requests the document has no route for (unknown paths, `/docs`) are left
 * alone: they are not part of the contract.
 */
export const checkAnswer = (
  method: string,
  url: string,
  status: number,
  contentType: string | null,
  text: string,
): void => {
  // Matched as sent (percent-encoded): a parameter is any run of characters but `/`.
  const path = url.split('?')[0].replace(/\/+$/, '') || '/';
  const template = routeOf(method, path);
  if (template === null) return;
  const { doc, ajv, validators } = load();
  const m = method.toLowerCase();
  const key = `${method.toUpperCase()} ${template} ${status}`;
  const where = `${method.toUpperCase()} ${url} → ${status}`;
  const response = doc.paths[template][m]?.responses?.[String(status)];
  if (!response) {
    throw new ContractMismatch(
      `${where}: the document has no ${status} answer for ${template}: ${text.slice(0, 300)}`,
    );
  }
  reached.add(key);
  if (process.env.ARBOR_CONTRACT_REPORT)
    fs.appendFileSync(process.env.ARBOR_CONTRACT_REPORT, `${key}\n`);
  const content = response.content;
  if (!content) {
    if (text !== '')
      throw new ContractMismatch(`${where}: documented without a body, got ${text.slice(0, 200)}`);
    return;
  }
  const type = (contentType ?? '').split(';')[0].trim();
  const media = content[type];
  if (!media) {
    throw new ContractMismatch(
      `${where}: content type ${type || '(none)'} is not documented (${Object.keys(content).join(', ')})`,
    );
  }
  if (type !== 'application/json' && !type.endsWith('+json')) return;
  const ref = `${DOC_ID}#/${pointer('paths', template, m, 'responses', String(status), 'content', type, 'schema')}`;
  let validate = validators.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    validators.set(ref, validate);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ContractMismatch(`${where}: ${type} answer is not JSON: ${text.slice(0, 200)}`);
  }
  if (!validate(body)) {
    throw new ContractMismatch(
      `${where}: the answer does not match the document: ${(validate.errors ?? [])
        .slice(0, 5)
        .map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
        .join('; ')}\n${text.slice(0, 1000)}`,
    );
  }
};
