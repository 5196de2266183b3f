/**
 * `query({ resume })` through `ArborSessionStore`: the real SDK spawns the real Claude Code CLI
 * (the SDK's native binary, an optional dependency installed here), which resumes a real
 * session read from Arbor (`load`), talks to a local server speaking Anthropic's Messages wire
 * format (SSE), and the SDK mirrors the new turn back into the store (`append`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  importSessionToStore,
  query,
  type SessionKey,
  type SessionStoreEntry,
} from '@anthropic-ai/claude-agent-sdk';
import { ArborClient } from '@arbor/client';
import { type Harness, startHarness } from '../../../test/support/harness';
import { ArborSessionStore } from '../src';
import { startMockAnthropic } from './support/mock-anthropic';

const SESSION = '03eb5929-52b3-4b13-ada3-b93ae35806b8';
const FIXTURE = path.resolve(
  __dirname,
  `../../../test/fixtures/real/claude-code/experiments-ideas__${SESSION}.jsonl`,
);

describe('query({ resume }) with ArborSessionStore and the Claude Code CLI', () => {
  let h: Harness;
  let mock: Awaited<ReturnType<typeof startMockAnthropic>>;
  let tmp: string;
  const saved = process.env.CLAUDE_CONFIG_DIR;
  beforeAll(async () => {
    h = await startHarness();
    mock = await startMockAnthropic();
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-claude-resume-')));
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.CLAUDE_CONFIG_DIR;
    else process.env.CLAUDE_CONFIG_DIR = saved;
    await mock.close();
    await h.destroy();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('resumes a session loaded from Arbor; the new turn is appended to it', async () => {
    const { apiKey } = await h.createTenant('claude-resume');
    const store = new ArborSessionStore({
      client: new ArborClient({ baseUrl: h.baseUrl, apiKey }),
    });
    // The session on disk where the SDK looks, imported into Arbor, then the disk copy removed:
    // the resume can only come from the store.
    const cwd = path.join(tmp, 'project');
    fs.mkdirSync(cwd);
    const projectKey = cwd.replace(/[^A-Za-z0-9]/g, '-');
    const importConfig = path.join(tmp, 'import-config');
    fs.mkdirSync(path.join(importConfig, 'projects', projectKey), { recursive: true });
    fs.copyFileSync(FIXTURE, path.join(importConfig, 'projects', projectKey, `${SESSION}.jsonl`));
    process.env.CLAUDE_CONFIG_DIR = importConfig;
    await importSessionToStore(SESSION, store, { dir: cwd });
    fs.rmSync(importConfig, { recursive: true, force: true });
    const key: SessionKey = { projectKey, sessionId: SESSION };
    const before = await store.load(key);
    expect(before?.length).toBe(fs.readFileSync(FIXTURE, 'utf8').trim().split('\n').length);

    const config = path.join(tmp, 'cli-config'); // an empty Claude Code home for the CLI
    fs.mkdirSync(config);
    const messages: { type: string; subtype?: string; result?: string; session_id?: string }[] = [];
    for await (const m of query({
      prompt: 'What did we decide about the Markdown documents?',
      options: {
        resume: SESSION,
        sessionStore: store,
        cwd,
        maxTurns: 1,
        tools: [],
        settingSources: [],
        env: {
          PATH: process.env.PATH,
          HOME: tmp,
          CLAUDE_CONFIG_DIR: config,
          ANTHROPIC_BASE_URL: mock.baseURL,
          ANTHROPIC_API_KEY: 'mock-key',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_AUTOUPDATER: '1',
          DISABLE_TELEMETRY: '1',
        },
      },
    }))
      messages.push(m as (typeof messages)[number]);
    const result = messages.find((m) => m.type === 'result');
    expect(result).toMatchObject({
      subtype: 'success',
      result: 'You said: What did we decide about the Markdown documents?',
    });
    // The model was sent the stored session's history before the new question.
    const asked = mock.requests.find((r) =>
      JSON.stringify(r.messages).includes('What did we decide about the Markdown documents?'),
    );
    expect(asked).toBeDefined();
    expect(JSON.stringify(asked!.messages)).toContain(
      'mostly one idea about how to organize the work Markdown documents',
    );
    // The resumed session's new entries went to the store, after the old ones.
    const sessionId = result?.session_id ?? SESSION;
    const after = (await store.load({ projectKey, sessionId })) as SessionStoreEntry[];
    const added = sessionId === SESSION ? after.slice(before!.length) : after;
    if (sessionId === SESSION) expect(after.slice(0, before!.length)).toEqual(before);
    const texts = JSON.stringify(added);
    expect(texts).toContain('What did we decide about the Markdown documents?');
    expect(texts).toContain('You said: What did we decide about the Markdown documents?');
  }, 180_000);
});
