/**
 * Real Claude Code sessions (test/fixtures/real/claude-code) through the SDK's own session
 * functions with `ArborSessionStore`: `importSessionToStore` (and its replay), then
 * `getSessionMessages`, `forkSession`, `renameSession` and `listSessions` reading through
 * `load`, against the real app, which restarts between writing and reading.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  forkSession,
  getSessionMessages,
  importSessionToStore,
  listSessions,
  renameSession,
  type SessionKey,
  type SessionStoreEntry,
} from '@anthropic-ai/claude-agent-sdk';
import { ArborClient, type MessageInput } from '@arbor/client';
import { type Harness, startHarness } from '../../../test/support/harness';
import { ArborSessionStore } from '../src';

const FIXTURES = path.resolve(__dirname, '../../../test/fixtures/real/claude-code');
const PROJECT_DIR = '/work/claude-agent-sdk-fixture';
// The SDK's project key for a directory: its path with every non-alphanumeric as '-'.
const PROJECT_KEY = PROJECT_DIR.replace(/[^A-Za-z0-9]/g, '-');

/** The fixtures laid out as `CLAUDE_CONFIG_DIR/projects/<project>/<session>.jsonl` (+ subagents). */
const layOut = (configDir: string) => {
  const project = path.join(configDir, 'projects', PROJECT_KEY);
  fs.mkdirSync(project, { recursive: true });
  const sessions: string[] = [];
  for (const file of fs.readdirSync(FIXTURES).sort()) {
    const [, sessionId, , agent] = file.replace(/\.jsonl$/, '').split('__');
    if (!/^[0-9a-f-]{36}$/.test(sessionId)) continue; // agent-only files have no session
    if (agent === undefined) {
      fs.copyFileSync(path.join(FIXTURES, file), path.join(project, `${sessionId}.jsonl`));
      sessions.push(sessionId);
    } else {
      fs.mkdirSync(path.join(project, sessionId, 'subagents'), { recursive: true });
      fs.copyFileSync(
        path.join(FIXTURES, file),
        path.join(project, sessionId, 'subagents', `${agent}.jsonl`),
      );
    }
  }
  return { project, sessions };
};

const linesOf = (file: string): SessionStoreEntry[] =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as SessionStoreEntry);

describe('ArborSessionStore with real Claude Code sessions and the SDK’s session functions', () => {
  let h: Harness;
  let apiKey: string;
  let configDir: string;
  let laid: ReturnType<typeof layOut>;
  const saved = process.env.CLAUDE_CONFIG_DIR;
  beforeAll(async () => {
    h = await startHarness();
    apiKey = (await h.createTenant('claude-code')).apiKey;
    configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-claude-config-'));
    process.env.CLAUDE_CONFIG_DIR = configDir;
    laid = layOut(configDir);
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.CLAUDE_CONFIG_DIR;
    else process.env.CLAUDE_CONFIG_DIR = saved;
    fs.rmSync(configDir, { recursive: true, force: true });
    await h.destroy();
  });

  const client = () => new ArborClient({ baseUrl: h.baseUrl, apiKey });
  const store = () => new ArborSessionStore({ client: client() });
  const key = (sessionId: string, subpath?: string): SessionKey => ({
    projectKey: PROJECT_KEY,
    sessionId,
    ...(subpath !== undefined ? { subpath } : {}),
  });
  const stored = async (id: string) => {
    const out: MessageInput[] = [];
    for await (const m of client().messages(id, 1000)) out.push(m);
    return out;
  };

  it('imports every session with importSessionToStore: load is the file, line for line', async () => {
    const s = store();
    for (const sessionId of laid.sessions)
      await importSessionToStore(sessionId, s, { dir: PROJECT_DIR, batchSize: 200 });

    await h.restart(); // read back by a new process, from the log
    const reader = store();
    let turns = 0;
    for (const sessionId of laid.sessions) {
      const file = path.join(laid.project, `${sessionId}.jsonl`);
      expect(await reader.load(key(sessionId))).toEqual(linesOf(file));
      const conversation = await client().getConversation(reader.conversationId(key(sessionId)));
      turns += conversation.counts.turns;
      const sub = path.join(laid.project, sessionId, 'subagents');
      const agents = fs.existsSync(sub) ? fs.readdirSync(sub) : [];
      expect((await reader.listSubkeys(key(sessionId))).sort()).toEqual(
        agents.map((f) => `subagents/${f.replace(/\.jsonl$/, '')}`).sort(),
      );
      for (const f of agents)
        expect(await reader.load(key(sessionId, `subagents/${f.replace(/\.jsonl$/, '')}`))).toEqual(
          linesOf(path.join(sub, f)),
        );
    }
    // The messages are Arbor turns: prompts, tool calls with their results, answers.
    expect(turns).toBeGreaterThan(laid.sessions.length);
    const branch = await stored(reader.conversationId(key(laid.sessions[0])));
    const blocks = new Set(branch.flatMap((m) => m.content.map((b) => `${m.role}:${b.type}`)));
    expect([...blocks]).toEqual(
      expect.arrayContaining([
        'user:text',
        'assistant:text',
        'assistant:tool_use',
        'user:tool_result',
      ]),
    );
    const images = await Promise.all(
      laid.sessions.map(async (id) =>
        (await stored(reader.conversationId(key(id)))).some((m) =>
          m.content.some((b) => b.type === 'image'),
        ),
      ),
    );
    expect(images.filter(Boolean).length).toBeGreaterThanOrEqual(1); // the fixtures' real PNGs
    // Every turn was taken as rendered: none fell back to plain text (whose answer carries no
    // entry of its own).
    for (const id of laid.sessions) {
      const plain = (await stored(reader.conversationId(key(id)))).filter(
        (m) =>
          (m.clientData as { claudeAgentSdk?: { entries: unknown[] } }).claudeAgentSdk?.entries
            .length === 0,
      );
      expect({ id, plain: plain.length }).toEqual({ id, plain: 0 });
    }

    // A replayed import writes nothing: not one event more.
    const revisions = async () =>
      Promise.all(
        laid.sessions.map(
          async (id) => (await client().getConversation(reader.conversationId(key(id)))).revision,
        ),
      );
    const before = await revisions();
    for (const sessionId of laid.sessions)
      await importSessionToStore(sessionId, reader, { dir: PROJECT_DIR, batchSize: 500 });
    expect(await revisions()).toEqual(before);
  }, 300_000);

  it('streams a session in small batches as the SDK mirrors a live one: the same turns', async () => {
    const sessionId = laid.sessions[0];
    const entries = linesOf(path.join(laid.project, `${sessionId}.jsonl`));
    const s = store();
    const live = key(`${sessionId}-live`);
    // Batches of 1 to 7 lines: turn boundaries and split API messages fall anywhere.
    for (let i = 0, n = 1; i < entries.length; i += n, n = (n % 7) + 1)
      await s.append(live, entries.slice(i, i + n));
    expect(await s.load(live)).toEqual(entries);
    const whole = await stored(s.conversationId(key(sessionId)));
    const streamed = await stored(s.conversationId(live));
    expect(streamed.map((m) => m.content)).toEqual(whole.map((m) => m.content));
  }, 300_000);

  it('getSessionMessages, forkSession and renameSession work through load', async () => {
    const s = store();
    // A session with a real branch (two prompts under one parent).
    const sessionId = laid.sessions.find((id) => id.startsWith('03eb5929')) ?? laid.sessions[0];
    const local = await getSessionMessages(sessionId, { dir: PROJECT_DIR });
    expect(local.length).toBeGreaterThan(0);
    // Resume reads the transcript through load: the same chain as from the local file.
    expect(await getSessionMessages(sessionId, { dir: PROJECT_DIR, sessionStore: s })).toEqual(
      local,
    );

    const cut = local[Math.floor(local.length / 2)].uuid;
    const fork = await forkSession(sessionId, {
      dir: PROJECT_DIR,
      sessionStore: s,
      upToMessageId: cut,
      title: 'fork at the middle',
    });
    const forked = await s.load(key(fork.sessionId));
    expect(forked).not.toBeNull();
    const forkedMessages = await getSessionMessages(fork.sessionId, {
      dir: PROJECT_DIR,
      sessionStore: s,
    });
    const upTo = local.findIndex((m) => m.uuid === cut) + 1;
    expect(forkedMessages.map((m) => m.message)).toEqual(
      local.slice(0, upTo).map((m) => m.message),
    );
    // Fresh uuids: the fork shares no entry with its source.
    const source = new Set((await s.load(key(sessionId)))?.map((e) => e.uuid));
    expect(forked?.some((e) => e.uuid !== undefined && source.has(e.uuid))).toBe(false);
    // Its messages are Arbor turns in a conversation of its own.
    expect(
      (await client().getConversation(s.conversationId(key(fork.sessionId)))).counts.turns,
    ).toBeGreaterThan(0);

    await renameSession(fork.sessionId, 'renamed', { dir: PROJECT_DIR, sessionStore: s });
    const listed = await listSessions({ dir: PROJECT_DIR, sessionStore: s });
    expect(listed.find((x) => x.sessionId === fork.sessionId)?.customTitle).toBe('renamed');
    expect(listed.map((x) => x.sessionId)).toEqual(expect.arrayContaining(laid.sessions));
  }, 300_000);
});
