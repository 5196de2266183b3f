/**
 * The console's only way to the server: `@arbor/client` over the public HTTP API, with the key of
 * this tab. Its wire types are the client's, generated from the contract's OpenAPI document.
 */
import {
  type Answer,
  ArborClient,
  ArborProblemError,
  type CallInit,
  type OperationId,
  type Schemas,
} from '@arbor/client';

export { ArborProblemError };

const KEY = 'arbor.console.key';
const ROLE = 'arbor.console.role';
const TENANT = 'arbor.console.tenant';

export type Role = 'tenant' | 'admin';

/** Kept for this browser tab only (sessionStorage): closing the tab forgets it. */
export const session = {
  key: (): string | null => sessionStorage.getItem(KEY),
  role: (): Role | null => sessionStorage.getItem(ROLE) as Role | null,
  /** The tenant whose data the admin is reading (through the admin's own routes), or null. */
  viewing: (): string | null => sessionStorage.getItem(TENANT),
  set(key: string, role: Role): void {
    sessionStorage.setItem(KEY, key);
    sessionStorage.setItem(ROLE, role);
  },
  view(tenantId: string | null): void {
    if (tenantId === null) sessionStorage.removeItem(TENANT);
    else sessionStorage.setItem(TENANT, tenantId);
  },
  clear(): void {
    sessionStorage.clear();
  },
};

/** The client with this tab's key (or `key`); the console's server is its own origin. */
export const api = (key: string | null = session.key()): ArborClient =>
  new ArborClient({ baseUrl: location.origin, ...(key ? { apiKey: key } : {}) });

/** True while the admin reads a tenant's data: the routes are read-only, so no actions. */
export const readOnly = (): boolean => session.role() === 'admin' && session.viewing() !== null;

/** The reads the console makes, each with the admin's read-only twin for a tenant's data. */
const ADMIN_TWIN = {
  listConversations: 'adminListConversations',
  getConversation: 'adminGetConversation',
  activeBranch: 'adminActiveBranch',
  getMessage: 'adminGetMessage',
  tree: 'adminTree',
  events: 'adminEvents',
  export: 'adminExport',
  replay: 'adminReplay',
  listContexts: 'adminListContexts',
  reproduceContext: 'adminReproduceContext',
  verifyConversation: 'adminVerifyConversation',
} as const satisfies Partial<Record<OperationId, OperationId>>;

export type ReadId = keyof typeof ADMIN_TWIN;

/**
 * A read of this tab's conversations: the tenant's own route, or, for the admin reading a
 * tenant, its twin under `/v1/admin/tenants/{tenantId}/conversations…` (each read recorded by
 * the server as an `AdminDataRead` event, actor admin). Both answer the same shape.
 */
export const read = <K extends ReadId>(operationId: K, init: CallInit<K>): Promise<Answer<K>> => {
  const tenantId = session.role() === 'admin' ? session.viewing() : null;
  if (tenantId === null) return api().call(operationId, init);
  const twin = ADMIN_TWIN[operationId];
  const path = { ...(init.path ?? {}), tenantId };
  // The twin takes the same init plus the tenant (its answer is the same shape).
  const twinInit = { ...init, path } as unknown as CallInit<typeof twin>;
  return api().call(twin, twinInit) as Promise<Answer<K>>;
};

// --- Wire shapes the console reads: the client's, so they cannot drift from the API ---

export type Block = Schemas['Block'];
export type Message = Schemas['BranchMessage'];
export type Conversation = Schemas['Conversation'];
export type TreeNode = Schemas['TreeNode'];
export type Checkpoint = Schemas['Checkpoint'];
export type Tree = Schemas['Tree'];
export type Decision = Schemas['CompactionDecision'];
export type Replay = Schemas['ReplayView'];
export type AuditEvent = Schemas['AuditEvent'];
export type ContextItem = Schemas['ContextSummary'];
export type Reproduction = Answer<'reproduceContext'>;
export type Verdict = Answer<'verifyConversation'>;

/**
 * Follows `GET …/{id}/stream` with the key in the Authorization header (EventSource cannot send
 * one): `onEvent` gets each event's revision. The client reopens a dropped stream with
 * `Last-Event-ID`; when it gives up (the server away longer than its retries), this starts it
 * again from the last revision after the server's usual 2 s. A refusal (404, 401) ends it.
 * Returns the function that stops it.
 */
export const followStream = (
  id: string,
  fromRevision: number,
  onEvent: (revision: number) => void,
  onState: (state: 'open' | 'reconnecting') => void = () => undefined,
): (() => void) => {
  const abort = new AbortController();
  let last = fromRevision;
  const run = async (): Promise<void> => {
    while (!abort.signal.aborted) {
      try {
        const events = api().stream(id, { fromRevision: last, signal: abort.signal, onState });
        for await (const e of events) {
          last = e.revision;
          onEvent(e.revision);
        }
      } catch (e) {
        if (abort.signal.aborted) return;
        if (e instanceof ArborProblemError && e.status < 500 && e.status !== 429) return;
      }
      if (abort.signal.aborted) return;
      onState('reconnecting');
      await new Promise((r) => setTimeout(r, 2000));
    }
  };
  void run();
  return () => abort.abort();
};
