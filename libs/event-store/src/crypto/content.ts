/** Which event fields are content, sealed under the stream's key (format: README, Content sealing). */
import { open, seal } from './aead';

export const SEALED_VERSION = 1;
export const ERASED = '[erased]';

type Json = unknown;
type Path = readonly string[];

interface ContentField {
  path: Path;
  erased: Json;
}

const field = (path: string, erased: Json): ContentField => ({ path: path.split('.'), erased });

/** Content fields by event type; a field added here is sealed from then on (older events stay clear). */
export const CONTENT_FIELDS: Readonly<Record<string, readonly ContentField[]>> = {
  ConversationStarted: [field('title', ERASED), field('metadata', {})],
  MessageAppended: [
    field('message.content', [{ type: 'text', text: ERASED }]),
    field('message.metadata', {}),
    field('message.clientData', undefined),
    field('message.model', undefined),
  ],
  TurnFailed: [field('input', ERASED), field('error', ERASED)],
  CheckpointRewound: [field('digest', ERASED)],
  CompactionApplied: [field('decision.summary', ERASED), field('decision.results', [])],
  CompactionRevoked: [field('reason', ERASED)],
  BranchSummarized: [field('summary', ERASED), field('instruction', ERASED)],
  ContextAssembled: [
    field('request.system', ERASED),
    field('request.tools', []),
    field('request.append', []),
  ],
  DraftSaved: [field('messages', [])],
  TenantCreated: [field('name', ERASED)],
  ApiKeyIssued: [field('label', ERASED)],
};

export interface SealedBox {
  v: number;
  alg: 'A256GCM';
  fields: string[];
  box: string;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const getAt = (root: unknown, path: Path): unknown => {
  let at: unknown = root;
  for (const key of path) {
    if (!isObject(at)) return undefined;
    at = at[key];
  }
  return at;
};

/** Sets `value` at `path`, copying each object on the path once so the input is never changed. */
const setOwned = (
  root: Record<string, unknown>,
  path: Path,
  value: unknown,
  owned: Set<object>,
): void => {
  let at = root;
  for (let i = 0; i < path.length - 1; i++) {
    const child = at[path[i]];
    if (!isObject(child)) return;
    if (!owned.has(child)) {
      const copy = { ...child };
      owned.add(copy);
      at[path[i]] = copy;
      at = copy;
    } else at = child;
  }
  if (value === undefined) delete at[path[path.length - 1]];
  else at[path[path.length - 1]] = value;
};

const SEALED_HERE = null;

export const aadOf = (streamName: string, revision: bigint): Buffer =>
  Buffer.from(`arbor-event/${SEALED_VERSION}|${streamName}|${revision.toString()}`, 'utf8');

export const hasContent = (type: string): boolean => CONTENT_FIELDS[type] !== undefined;

export const sealedBoxOf = (data: unknown): SealedBox | null => {
  if (!isObject(data) || !isObject(data.sealed)) return null;
  const s = data.sealed;
  return s.v === SEALED_VERSION && typeof s.box === 'string' && Array.isArray(s.fields)
    ? (s as unknown as SealedBox)
    : null;
};

export const sealData = (
  type: string,
  data: unknown,
  key: Buffer,
  streamName: string,
  revision: bigint,
): unknown => {
  const fields = CONTENT_FIELDS[type];
  if (fields === undefined || !isObject(data) || sealedBoxOf(data) !== null) return data;
  const taken: Record<string, unknown> = {};
  const rest: Record<string, unknown> = { ...data };
  const owned = new Set<object>([rest]);
  for (const f of fields) {
    const value = getAt(data, f.path);
    if (value === undefined) continue;
    const name = f.path.join('.');
    taken[name] = value;
    setOwned(rest, f.path, SEALED_HERE, owned);
  }
  const names = Object.keys(taken);
  if (names.length === 0) return data;
  const plaintext = Buffer.from(JSON.stringify(taken), 'utf8');
  const box = seal(key, plaintext, aadOf(streamName, revision)).toString('base64');
  plaintext.fill(0);
  const sealed: SealedBox = { v: SEALED_VERSION, alg: 'A256GCM', fields: names, box };
  return { ...rest, sealed };
};

/** `data` opened; with a null key (erased) each sealed field reads as its stand-in. */
export const openData = (
  type: string,
  data: unknown,
  key: Buffer | null,
  streamName: string,
  revision: bigint,
): unknown => {
  const box = sealedBoxOf(data);
  if (box === null || !isObject(data)) return data;
  const { sealed: _sealed, ...out } = data;
  const owned = new Set<object>([out]);
  if (key === null) {
    const fields = CONTENT_FIELDS[type] ?? [];
    for (const name of box.fields) {
      const f = fields.find((x) => x.path.join('.') === name);
      setOwned(out, name.split('.'), f === undefined ? ERASED : f.erased, owned);
    }
    return out;
  }
  const plaintext = open(key, Buffer.from(box.box, 'base64'), aadOf(streamName, revision));
  const taken = JSON.parse(plaintext.toString('utf8')) as Record<string, unknown>;
  for (const name of box.fields) setOwned(out, name.split('.'), taken[name], owned);
  return out;
};
