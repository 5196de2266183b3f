/**
 * `npm run example:claude-agent-sdk`: a real Claude Code session file (from
 * test/fixtures/real/claude-code) imported into Arbor with the Claude Agent SDK's own
 * `importSessionToStore`, read back through the store as a resume would (`getSessionMessages`),
 * forked at its middle with `forkSession`, and listed. Prints what Arbor stored.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  forkSession,
  getSessionMessages,
  importSessionToStore,
  listSessions,
} from '@anthropic-ai/claude-agent-sdk';
import { ArborClient } from '@arbor/client';
import { ArborSessionStore } from '@arbor/claude-agent-sdk';
import { startArbor } from './embedded';

const SESSION = '03eb5929-52b3-4b13-ada3-b93ae35806b8';
const FILE = path.join(
  __dirname,
  `../test/fixtures/real/claude-code/experiments-ideas__${SESSION}.jsonl`,
);

const main = async () => {
  const arbor = await startArbor();
  const client = new ArborClient({ baseUrl: arbor.baseUrl, apiKey: arbor.apiKey });
  const sessionStore = new ArborSessionStore({ client });

  // The SDK reads local sessions from CLAUDE_CONFIG_DIR/projects/<project>/<session>.jsonl.
  const dir = path.join(os.tmpdir(), `arbor-example-project-${Date.now()}`);
  const config = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-example-claude-'));
  process.env.CLAUDE_CONFIG_DIR = config;
  const project = path.join(config, 'projects', dir.replace(/[^A-Za-z0-9]/g, '-'));
  fs.mkdirSync(project, { recursive: true });
  fs.copyFileSync(FILE, path.join(project, `${SESSION}.jsonl`));

  await importSessionToStore(SESSION, sessionStore, { dir });
  await importSessionToStore(SESSION, sessionStore, { dir }); // a replay writes nothing
  const key = { projectKey: dir.replace(/[^A-Za-z0-9]/g, '-'), sessionId: SESSION };
  const id = sessionStore.conversationId(key);
  const conversation = await client.getConversation(id);
  const lines = fs.readFileSync(FILE, 'utf8').trim().split('\n').length;
  console.log(
    `imported ${lines} transcript lines → conversation ${id}: ${conversation.counts.turns} turns, ${conversation.counts.messages} messages (revision ${conversation.revision})`,
  );
  console.log(`load() gives back ${(await sessionStore.load(key))?.length} entries`);

  const messages = await getSessionMessages(SESSION, { dir, sessionStore });
  console.log(`resume reads ${messages.length} messages through load()`);
  const middle = messages[Math.floor(messages.length / 2)].uuid;
  const fork = await forkSession(SESSION, { dir, sessionStore, upToMessageId: middle });
  console.log(`forked at ${middle} → session ${fork.sessionId}`);
  for (const s of await listSessions({ dir, sessionStore }))
    console.log(`  ${s.sessionId}  ${s.summary.slice(0, 60)}`);

  console.log('\nThe first turns Arbor stored:');
  let n = 0;
  for await (const m of client.messages(id)) {
    const blocks = m.content.map((b) =>
      b.type === 'text' ? JSON.stringify(b.text.slice(0, 50)) : b.type,
    );
    console.log(`  ${m.role.padEnd(9)} ${blocks.join(' | ')}`);
    if (++n === 8) break;
  }
  fs.rmSync(config, { recursive: true, force: true });
  await arbor.stop();
};

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
