/**
 * `npm pack` makes a tarball that installs alone: into an empty folder, with `@arbor/client`
 * inside it (bundled) and `@openai/agents` (the peer) from the registry or npm's cache, it runs
 * the README's quick start against the real app and a local Responses model.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Harness, startHarness } from '../../../test/support/harness';
import { installAlone } from '../../../test/support/pack';
import { startMockResponses } from './support';

// The README's quick start (CommonJS), the model at OPENAI_BASE_URL.
const QUICK_START = `
const { Agent, Runner } = require('@openai/agents');
const { ArborClient, ArborSession, arborContext } = require('@arbor/openai-agents');
const [baseUrl, apiKey, sessionId, question] = process.argv.slice(2);
const tools = [];
(async () => {
  const session = new ArborSession({ client: new ArborClient({ baseUrl, apiKey }), sessionId, model: 'gpt-5-mini' });
  const agent = new Agent({ name: 'assistant', instructions: 'Be brief.', model: 'gpt-5-mini', tools });
  const result = await new Runner().run(agent, question, {
    session,
    callModelInputFilter: arborContext(session, { budgetTokens: 100_000, maxTokens: 4096 }),
  });
  console.log(JSON.stringify({ answer: result.finalOutput, items: (await session.getItems()).length }));
})().catch((e) => { console.error(e); process.exit(1); });
`;

describe('@arbor/openai-agents package', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-agents-pack-'));
  let h: Harness;
  let mock: Awaited<ReturnType<typeof startMockResponses>>;
  beforeAll(async () => {
    h = await startHarness();
    mock = await startMockResponses();
  });
  afterAll(async () => {
    await mock.close();
    await h.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('installs alone from its tarball and runs the quick start', async () => {
    const { app, paths, js } = installAlone('openai-agents', dir);
    expect(paths).toEqual(
      expect.arrayContaining([
        'dist/index.js',
        'dist/index.d.ts',
        'dist/session.js',
        'README.md',
        'node_modules/@arbor/client/dist/index.js',
        'node_modules/@arbor/client/dist/index.d.ts',
      ]),
    );
    expect(paths.filter((p) => p.startsWith('src/') || p.includes('test/'))).toEqual([]);
    expect(js).not.toMatch(/require\("\.\.\/\.\./);
    // Nothing beside the package: the client is the one inside it.
    expect(fs.existsSync(path.join(app, 'node_modules/@arbor/client'))).toBe(false);
    fs.writeFileSync(path.join(app, 'quick-start.js'), QUICK_START);
    const { apiKey } = await h.createTenant('pack');
    // Asynchronously: the server it talks to runs in this process.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['quick-start.js', h.baseUrl, apiKey, 'pack-1', 'Hello'],
      {
        cwd: app,
        encoding: 'utf8',
        env: {
          PATH: process.env.PATH,
          OPENAI_BASE_URL: mock.baseURL,
          OPENAI_API_KEY: 'mock',
          OPENAI_AGENTS_DISABLE_TRACING: '1',
        },
      },
    );
    expect(JSON.parse(stdout.trim())).toEqual({ answer: 'You said: Hello', items: 2 });
  }, 600_000); // a build, a pack and an install on a shared 2-core machine
});
