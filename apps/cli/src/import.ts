/**
 * `arbor import <file|folder>`: reads session files with @arbor/importers and commits each
 * conversation turn by turn through the client (the API's command path, embedded or over HTTP).
 *
 * Conversation ids and turn ids are derived from the file's content, so importing a file again
 * resumes where an interrupted import stopped (committed turns answer as replays) instead of
 * duplicating it.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import {
  type FileImport,
  type ImportedConversation,
  importSessionText,
  type LineNote,
  sessionFiles,
} from '@arbor/importers';
import { type ArborClient } from './client/types';
import { type Progress } from './progress';

export interface ImportedRef {
  file: string;
  id: string;
  title: string;
  kind: ImportedConversation['kind'];
  turns: number;
  messages: number;
  /** It was there already (an earlier import): its turns answered as replays. */
  resumed: boolean;
}

export interface ImportSummary {
  files: number;
  conversations: ImportedRef[];
  turns: number;
  messages: number;
  /** Turns that were already committed (a resumed import). */
  replayedTurns: number;
  skipped: { file: string; note: LineNote }[];
  changed: { file: string; note: LineNote }[];
  failures: { file: string; title: string; error: string }[];
  readMs: number;
  commitMs: number;
  reports: FileImport['report'][];
}

export interface ImportOptions {
  client: ArborClient;
  /** Conversations committed at once (turns within one are always in order). */
  concurrency: number;
  progress: (total: number) => Progress;
}

interface Job {
  file: string;
  index: number;
  conversation: ImportedConversation;
  id: string;
}

/** Content-derived ids: the same file imports into the same conversation ids. */
const conversationId = (text: string, index: number): string =>
  `imp-${createHash('sha256').update(text).digest('hex').slice(0, 24)}-${index}`;

const countMessages = (c: ImportedConversation): number =>
  c.turns.reduce((n, t) => n + t.messages.length, 0);

/** Commits one conversation; returns how many of its turns were replays. */
const commitOne = async (
  client: ArborClient,
  job: Job,
  onTurn: (messages: number) => void,
): Promise<{ resumed: boolean; replayed: number }> => {
  const c = job.conversation;
  const { created } = await client.startConversation({
    id: job.id,
    title: c.title.slice(0, 200),
    metadata: c.metadata,
  });
  let replayed = 0;
  let tip: string | null = null;
  for (const [i, t] of c.turns.entries()) {
    const r = await client.commitTurn(job.id, {
      turnId: `t${i}`,
      parentId: t.parentId,
      messages: t.messages,
    });
    if (r.replayed === true) replayed++;
    tip = r.tip;
    onTurn(t.messages.length);
  }
  if (!created) tip = (await client.conversation(job.id)).tip;
  if (c.tip !== null && tip !== c.tip) await client.moveTip(job.id, c.tip);
  for (const cp of c.checkpoints) await client.setCheckpoint(job.id, cp.label, cp.messageId);
  return { resumed: !created, replayed };
};

/** Runs `work` over `items` with at most `n` at once. */
const pool = async <T>(items: T[], n: number, work: (item: T) => Promise<void>): Promise<void> => {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(n, items.length)) }, worker));
};

export const runImport = async (target: string, options: ImportOptions): Promise<ImportSummary> => {
  const t0 = performance.now();
  const files = sessionFiles(target);
  const jobs: Job[] = [];
  const summary: ImportSummary = {
    files: files.length,
    conversations: [],
    turns: 0,
    messages: 0,
    replayedTurns: 0,
    skipped: [],
    changed: [],
    failures: [],
    readMs: 0,
    commitMs: 0,
    reports: [],
  };
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    const { conversations, report } = importSessionText(file, text);
    summary.reports.push(report);
    summary.skipped.push(...report.skipped.map((note) => ({ file, note })));
    summary.changed.push(...report.changed.map((note) => ({ file, note })));
    conversations.forEach((conversation, index) =>
      jobs.push({ file, index, conversation, id: conversationId(text, index) }),
    );
  }
  const t1 = performance.now();
  summary.readMs = t1 - t0;
  const total = jobs.reduce((n, j) => n + countMessages(j.conversation), 0);
  const progress = options.progress(total);
  let done = 0;
  await pool(jobs, options.concurrency, async (job) => {
    const c = job.conversation;
    try {
      const { resumed, replayed } = await commitOne(options.client, job, (m) => {
        done += m;
        progress.update(done);
      });
      summary.turns += c.turns.length;
      summary.messages += countMessages(c);
      summary.replayedTurns += replayed;
      summary.conversations.push({
        file: job.file,
        id: job.id,
        title: c.title,
        kind: c.kind,
        turns: c.turns.length,
        messages: countMessages(c),
        resumed,
      });
    } catch (e) {
      summary.failures.push({
        file: job.file,
        title: c.title,
        error:
          e instanceof Error
            ? `${(e as { code?: string }).code ?? 'error'}: ${e.message}`
            : String(e),
      });
    }
  });
  summary.commitMs = performance.now() - t1;
  const order = new Map(jobs.map((j, i) => [j.id, i]));
  summary.conversations.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  progress.finish(
    `${summary.messages} messages in ${summary.turns} turns of ${summary.conversations.length} conversations`,
  );
  return summary;
};
