/**
 * What the CLI needs from Arbor, answered the same way by the embedded store (the Nest
 * application context, its command and query buses) and by a running server over HTTP. Shapes
 * are the HTTP API's (the HTTP contract in the README), as JSON.
 */
import {
  type BranchMessage,
  type Checkpoint,
  type Conversation,
  type ReplayView as Replay,
  type Reproduction,
  type Tree,
  type TreeNode,
  type TurnAnswer,
} from '@arbor/contract';
import { type Message, type MessageInput } from '@arbor/domain';

/** `GET /v1/conversations/{id}`. */
export type ConversationInfo = Conversation;
export type TreeNodeView = TreeNode;
export type CheckpointView = Checkpoint;
/** `GET .../tree`. */
export type TreeView = Tree;
/** `POST .../turns`. */
export type CommitResult = TurnAnswer;

export interface StartResult {
  id: string;
  /** False when the id was taken (an import resumed): the conversation was there already. */
  created: boolean;
}

/** `GET .../replay?revision=N` with every page of the active branch in `branch.items`. */
export type ReplayView = Omit<Replay, 'branch'> & {
  branch: { length: number; items: BranchMessage[] };
};

/** `GET .../contexts/{contextId}`: a past context rebuilt and compared with its hash. */
export type ReproductionView = Reproduction;

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
  moveTip(id: string, messageId: string): Promise<{ tip: string | null; revision: number }>;
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
