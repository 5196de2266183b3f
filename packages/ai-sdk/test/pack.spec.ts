/**
 * `npm pack` makes a tarball that installs alone: into an empty folder, with `@arbor/client`
 * inside it (bundled) and `ai` (the peer) from the registry or npm's cache, plus the provider
 * the app picks, it runs the README's quick start against the real app and a local model.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Harness, startHarness } from '../../../test/support/harness';
import { installAlone } from '../../../test/support/pack';
import { startMockOpenAiChat } from './support';

// The README's quick start (CommonJS), with an OpenAI-compatible provider at the mock.
const QUICK_START = `
const { generateText, stepCountIs } = require('ai');
const { createOpenAI } = require('@ai-sdk/openai');
const { ArborClient, ArborHistory } = require('@arbor/ai-sdk');
const [baseUrl, apiKey, sessionId, question, modelUrl] = process.argv.slice(2);
const model = createOpenAI({ baseURL: modelUrl, apiKey: 'mock' }).chat('gpt-4o-mini');
const tools = {};
(async () => {
  const history = new ArborHistory(new ArborClient({ baseUrl, apiKey }), sessionId);
  await history.ensure();
  const next = await history.next({ model: 'gpt-4o-mini', budgetTokens: 50_000, maxTokens: 1024, system: 'Be brief.' });
  const input = [{ role: 'user', content: question }];
  const turnId = crypto.randomUUID();
  const result = await generateText({ model, system: next.system, messages: [...next.messages, ...input], tools, stopWhen: stepCountIs(5) });
  const done = await history.commit(input, result, { expectedTip: next.tip, turnId });
  console.log(JSON.stringify({ answer: result.text, messages: done.messageIds.length }));
})().catch((e) => { console.error(e); process.exit(1); });
`;

describe('@arbor/ai-sdk package', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-ai-sdk-pack-'));
  let h: Harness;
  let mock: Awaited<ReturnType<typeof startMockOpenAiChat>>;
  beforeAll(async () => {
    h = await startHarness();
    mock = await startMockOpenAiChat();
  });
  afterAll(async () => {
    await mock.close();
    await h.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('installs alone from its tarball and runs the quick start', async () => {
    const { app, paths, js } = installAlone('ai-sdk', dir, ['@ai-sdk/openai@3.0.141']);
    expect(paths).toEqual(
      expect.arrayContaining([
        'dist/index.js',
        'dist/index.d.ts',
        'dist/history.js',
        'README.md',
        'node_modules/@arbor/client/dist/index.js',
      ]),
    );
    expect(paths.filter((p) => p.startsWith('src/') || p.includes('test/'))).toEqual([]);
    expect(js).not.toMatch(/require\("\.\.\/\.\./);
    expect(fs.existsSync(path.join(app, 'node_modules/@arbor/client'))).toBe(false);
    // The peer npm chose for the range: ai 6 (ai 7 needs Node 22, see the README).
    const ai = JSON.parse(
      fs.readFileSync(path.join(app, 'node_modules/ai/package.json'), 'utf8'),
    ) as { version: string };
    expect(ai.version).toMatch(/^6\./);
    fs.writeFileSync(path.join(app, 'quick-start.js'), QUICK_START);
    const { apiKey } = await h.createTenant('pack');
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['quick-start.js', h.baseUrl, apiKey, 'pack-1', 'hello there', mock.baseURL],
      { cwd: app, encoding: 'utf8', env: { PATH: process.env.PATH } },
    );
    expect(JSON.parse(stdout.trim())).toEqual({ answer: 'You said: hello there', messages: 2 });
    expect(stderr).not.toMatch(/System messages/); // the prompt went as `system`
  }, 600_000); // a build, a pack and an install on a shared 2-core machine
});
