/** The window starts at a turn start: never an orphan tool_result (README.md). */
import { type Role } from './messages';
import { type CheckpointRecord, isLiveCheckpoint } from './state';

export interface CutNode {
  readonly id: string;
  readonly role: Role;
  readonly tokens: number;
  readonly toolUseIds: readonly string[];
  readonly toolResultIds: readonly string[];
}

export interface ResumeLimits {
  readonly keepMessages?: number;
  readonly keepTokens?: number;
}

export interface ResumeCut {
  readonly startIndex: number;
  readonly cutAt: string;
  readonly keptIds: readonly string[];
  readonly keptTokens: number;
  /** Where the limits alone would have started the window (path length when nothing fits). */
  readonly budgetStart: number;
  readonly keptWholeLastTurn: boolean;
}

export const isTurnStart = (path: readonly CutNode[], i: number): boolean =>
  i === 0 ||
  (path[i].role === 'user' &&
    path[i].toolResultIds.length === 0 &&
    path[i - 1].toolUseIds.length === 0);

export const budgetStart = (path: readonly CutNode[], limits: ResumeLimits): number => {
  const n = path.length;
  let start = limits.keepMessages === undefined ? 0 : Math.max(0, n - limits.keepMessages);
  if (limits.keepTokens !== undefined) {
    let total = 0;
    let i = n;
    while (i > 0 && total + path[i - 1].tokens <= limits.keepTokens) {
      total += path[i - 1].tokens;
      i -= 1;
    }
    start = Math.max(start, i);
  }
  return start;
};

export const computeResumeCut = (
  path: readonly CutNode[],
  limits: ResumeLimits,
): ResumeCut | null => {
  if (path.length === 0) return null;
  const budget = budgetStart(path, limits);
  let start = Math.min(budget, path.length - 1);
  while (!isTurnStart(path, start)) start -= 1;
  const kept = path.slice(start);
  return {
    startIndex: start,
    cutAt: path[start].id,
    keptIds: kept.map((n) => n.id),
    keptTokens: kept.reduce((sum, n) => sum + n.tokens, 0),
    budgetStart: budget,
    keptWholeLastTurn: start < budget && !hasTurnStartFrom(path, budget),
  };
};

const hasTurnStartFrom = (path: readonly CutNode[], from: number): boolean => {
  for (let i = from; i < path.length; i++) if (isTurnStart(path, i)) return true;
  return false;
};

/** Live checkpoints whose target is outside the kept window, sorted by label. */
export const checkpointsDroppedBy = (
  checkpoints: readonly CheckpointRecord[],
  keptIds: ReadonlySet<string>,
): CheckpointRecord[] =>
  checkpoints
    .filter((c) => isLiveCheckpoint(c) && !keptIds.has(c.messageId))
    .sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
