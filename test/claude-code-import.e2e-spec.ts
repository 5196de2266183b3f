import fs from 'node:fs';
import path from 'node:path';
import { REAL_CLAUDE_CODE } from '@arbor/fixtures';
import {
  type ImportedConversation,
  importClaudeCode,
  importSessionFile,
  SYNTHETIC_PROMPT_ID,
} from '@arbor/importers';
import { clientFor, type Client } from './support/api';
import { type Harness, startHarness } from './support/harness';

const DIR = REAL_CLAUDE_CODE;
const FILES = fs.readdirSync(DIR).filter((f) => f.endsWith('.jsonl'));

/** Every committed message id → its parent, from the turns. */
const parentsOf = (c: ImportedConversation): Map<string, string | null> => {
  const parents = new Map<string, string | null>();
  for (const t of c.turns)
    t.messages.forEach((m, i) =>
      parents.set(m.id as string, i === 0 ? t.parentId : (t.messages[i - 1].id as string)),
    );
  return parents;
};

/**
 * Real Claude Code session files, read by @arbor/importers and committed as turns through the
 * HTTP API; the tree, its branch points and the active branch read back over HTTP must be
 * exactly what the importer computed from the file.
 */
describe('importing Claude Code sessions through the API', () => {
  let h: Harness;
  let c: Client;
  const report: string[] = [];
  beforeAll(async () => {
    h = await startHarness();
    c = clientFor(h, (await h.createTenant('import')).apiKey);
  });
  afterAll(async () => {
    console.log(`Claude Code import:\n${report.join('\n')}`);
    await h.destroy();
  });

  /** Commits every turn, then checks tree, branch points, active branch and bytes. */
  const importAndVerify = async (name: string, conversation: ImportedConversation) => {
    const { turns } = conversation;
    const id = await c.start({ title: conversation.title });
    for (const [i, t] of turns.entries()) {
      const r = await c.post(c.conv(id, '/turns'), {
        turnId: `turn-${i}`,
        parentId: t.parentId,
        messages: t.messages,
      });
      if (r.status !== 201) throw new Error(`turn ${i} of ${name}: ${r.status} ${r.text}`);
      expect(r.body.messageIds).toEqual(t.messages.map((m) => m.id));
    }
    let moved = false;
    if ((await c.conversation(id)).tip !== conversation.tip) {
      await c.moveTip(id, conversation.tip as string);
      moved = true;
    }
    // The tree: exactly the committed messages, linked as the file links them.
    const parents = parentsOf(conversation);
    const tree = await c.tree(id);
    expect(tree.tip).toBe(conversation.tip);
    expect(new Map(tree.nodes.map((n) => [n.id, n.parentId]))).toEqual(parents);
    expect([...tree.branchPoints].sort()).toEqual([...conversation.branchPoints].sort());
    // The active branch: the one the file's last record is on.
    expect(await c.branchIds(id)).toEqual(conversation.activeBranch);
    // Every message comes back with the content that was sent (thinking signatures, images...).
    const exported = (await c.get(c.conv(id, '/export?format=jsonl&scope=tree'))).text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { id: string; content: unknown });
    const sent = new Map(turns.flatMap((t) => t.messages).map((m) => [m.id, m.content]));
    expect(exported).toHaveLength(sent.size);
    for (const m of exported) expect(m.content).toEqual(sent.get(m.id));
    const messages = sent.size - (sent.has(SYNTHETIC_PROMPT_ID) ? 1 : 0);
    report.push(
      `  ${name} (${conversation.kind}): ${turns.length} turns, ${messages} messages; ` +
        `branch points ${conversation.branchPoints.length}; ` +
        `active branch ${conversation.activeBranch.length}${moved ? ' (tip moved)' : ''}`,
    );
  };

  it('has the fixtures', () => {
    expect(FILES.length).toBeGreaterThanOrEqual(10);
  });

  it.each(FILES)('%s', async (file) => {
    const { conversations } = importSessionFile(path.join(DIR, file));
    expect(conversations.length).toBeGreaterThanOrEqual(1);
    for (const conversation of conversations) {
      expect(conversation.activeBranch.length).toBeGreaterThan(0);
      await importAndVerify(file, conversation);
    }
  });

  it('imports a branch inside a tool loop (prefix copied under new ids) through the API', async () => {
    const line = (uuid: string, parentUuid: string | null, role: string, content: unknown) =>
      JSON.stringify({ type: role, uuid, parentUuid, message: { id: `m-${uuid}`, role, content } });
    const { conversations } = importClaudeCode(
      'synthetic.jsonl',
      [
        line('u0', null, 'user', 'first'),
        line('a0', 'u0', 'assistant', [{ type: 'text', text: 'hi' }]),
        line('u1', 'a0', 'user', 'run it'),
        line('a1', 'u1', 'assistant', [{ type: 'tool_use', id: 't1', name: 'run', input: {} }]),
        line('r1', 'a1', 'user', [{ type: 'tool_result', tool_use_id: 't1', content: 'out' }]),
        line('a2', 'r1', 'assistant', [{ type: 'text', text: 'answer A' }]),
        line('a3', 'r1', 'assistant', [{ type: 'text', text: 'answer B (retried call)' }]),
      ].join('\n'),
    );
    expect(conversations[0].branchPoints).toEqual(['a0']);
    await importAndVerify('synthetic branch in a tool loop', conversations[0]);
  });
});
