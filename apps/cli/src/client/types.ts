/**
 * What the CLI needs from Arbor, answered the same way by the embedded store (the Nest
 * application context, its command and query buses) and by a running server over HTTP. Shapes
 * are the HTTP API's (the HTTP contract in the README), as JSON.
 */
import { type Message, type MessageInput } from '@arbor/domain';

export interface ConversationInfo {
  id: string;
  title: string | null;
  tip: string | null;
  revision: number;
  counts: { messages: number; turns: number };
}

export interface TreeNodeView {
  id: string;
  parentId: string | null;
  role: 'system' | 'user' | 'assistant';
  children: string[];
}

export interface CheckpointView {
  label: string;
  messageId: string;
  status: string;
  reason?: string;
}

export interface TreeView {
  tip: string | null;
  nodes: TreeNodeView[];
  branchPoints: string[];
  checkpoints: CheckpointView[];
}

export interface CommitResult {
  messageIds: string[];
  tip: string;
  revision: number;
  replayed?: boolean;
}

export interface StartResult {
  id: string;
  /** False when the id was taken (an import resumed): the conversation was there already. */
  created: boolean;
}

/** `GET .../replay?revision=N` with every page of the active branch in `branch.items`. */
export interface ReplayView {
  conversationId: string;
  revision: number;
  event: { revision: number; position: number; type: string; timestamp: string };
  conversation: ConversationInfo;
  tip: string | null;
  branch: { length: number; items: Message[] };
  tree: TreeView;
  checkpoints: CheckpointView[];
  window: { cutAt: string | null; tip: string | null; messages: number };
  compactions: {
    decisions: { id: string; rung?: string }[];
    inForce: string[];
    notInForce: { decisionId: string; reason: string }[];
  };
  pendingFailure: { failureId: string; input: unknown; error: unknown } | null;
  lastContext: { contextId: string; revision: number } | null;
}

/** `GET .../contexts/{contextId}`: a past context rebuilt and compared with its hash. */
export interface ReproductionView {
  contextId: string;
  revision: number;
  basedOnRevision: number;
  provider: string;
  model: string;
  body: unknown;
  bodyHash: string | null;
  recordedHash: string;
  match: boolean;
  checks: { name: string; recorded: unknown; reproduced: unknown; equal: boolean }[];
  mismatch?: { code: string; detail?: string; reason?: string };
}

export interface ArborClient {
  readonly mode: 'embedded' | 'http';
  /** Where it talks to, for summaries (`http://…` or the data directory). */
  readonly target: string;
  startConversation(body: {
    id?: string;
    title?: string;
    metadata?: Record<string, unknown>;
  }): Promise<StartResult>;
  commitTurn(
    id: string,
    body: { turnId?: string; parentId: string | null; messages: MessageInput[] },
  ): Promise<CommitResult>;
  moveTip(id: string, messageId: string): Promise<{ tip: string; revision: number }>;
  setCheckpoint(id: string, label: string, messageId: string): Promise<void>;
  conversation(id: string): Promise<ConversationInfo>;
  tree(id: string): Promise<TreeView>;
  /** `tree`: every message (export order); `branch`: the active branch, root → tip. */
  messages(id: string, scope: 'tree' | 'branch'): Promise<Message[]>;
  /** `GET .../export?format=…&scope=…`, the text the API answers. */
  exportText(id: string, format: 'jsonl' | 'markdown', scope: 'tree' | 'branch'): Promise<string>;
  replay(id: string, revision: number): Promise<ReplayView>;
  reproduce(id: string, contextId: string): Promise<ReproductionView>;
  close(): Promise<void>;
}

/** The JSON the HTTP API would answer for a value (drops undefined fields, Dates → strings). */
export const asJson = <T>(value: T): T =>
  value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
