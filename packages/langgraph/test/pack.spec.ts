/**
 * `npm pack` makes a tarball that installs alone: into an empty folder, with `@arbor/client`
 * inside it (bundled), its peers and `@langchain/langgraph` (the app's) from the registry or
 * npm's cache, it runs the README's quick start against the real app.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Harness, startHarness } from '../../../test/support/harness';
import { installAlone } from '../../../test/support/pack';

// The README's quick start, with a fixed answer in place of a model.
const QUICK_START = `
const { ArborClient, ArborSaver } = require('@arbor/langgraph');
const { MessagesAnnotation, StateGraph, START, END } = require('@langchain/langgraph');
const { AIMessage } = require('@langchain/core/messages');
(async () => {
  const checkpointer = new ArborSaver({ client: new ArborClient({ baseUrl: process.env.ARBOR_URL, apiKey: process.env.ARBOR_KEY }) });
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('agent', async () => ({ messages: [new AIMessage('Hello!')] }))
    .addEdge(START, 'agent').addEdge('agent', END)
    .compile({ checkpointer });
  await graph.invoke({ messages: [{ role: 'user', content: 'Hi' }] }, { configurable: { thread_id: 't1' } });
  const ids = await checkpointer.conversationsOf('t1');
  const state = await graph.getState({ configurable: { thread_id: 't1' } });
  console.log(JSON.stringify({ ids, last: state.values.messages.at(-1).content }));
})().catch((e) => { console.error(e); process.exit(1); });
`;

describe('@arbor/langgraph package', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-langgraph-pack-'));
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('installs alone from its tarball and runs the quick start against Arbor', async () => {
    const { app, paths, js } = installAlone('langgraph', dir, ['@langchain/langgraph@1.7.3']);
    expect(paths).toEqual(
      expect.arrayContaining([
        'dist/index.js',
        'dist/index.d.ts',
        'dist/saver.js',
        'README.md',
        'node_modules/@arbor/client/dist/index.js',
      ]),
    );
    expect(fs.existsSync(path.join(app, 'node_modules/@arbor/client'))).toBe(false);
    expect(paths.filter((p) => p.startsWith('src/') || p.includes('test/'))).toEqual([]);
    expect(js).not.toMatch(/require\("\.\.\/\.\./);
    fs.writeFileSync(path.join(app, 'quick-start.js'), QUICK_START);
    const { apiKey } = await h.createTenant('pack');
    // Asynchronously: the server it talks to runs in this process.
    const { stdout: out } = await promisify(execFile)(process.execPath, ['quick-start.js'], {
      cwd: app,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        ARBOR_URL: h.baseUrl,
        ARBOR_KEY: apiKey,
      },
    });
    const answer = JSON.parse(out.trim()) as { ids: { messages: string }; last: string };
    expect(answer.last).toBe('Hello!');
    const r = await h.call('GET', `/v1/conversations/${answer.ids.messages}/messages`, {
      key: apiKey,
    });
    expect((r.body as { items: { role: string }[] }).items.map((m) => m.role)).toEqual([
      'user',
      'assistant',
    ]);
  }, 600_000); // a build, a pack and an install on a shared 2-core machine
});
