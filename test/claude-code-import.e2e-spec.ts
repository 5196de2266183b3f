import fs from 'node:fs';
import path from 'node:path';
import { clientFor, type Client } from './support/api';
import { convertClaudeCode, SYNTHETIC_PROMPT_ID } from './support/claude-code';
import { type Harness, startHarness } from './support/harness';

const DIR = path.resolve(__dirname, '../../shared/fixtures/real/claude-code');
const FILES = fs.existsSync(DIR) ? fs.readdirSync(DIR).filter((f) => f.endsWith('.jsonl')) : [];

/**
 * Real Claude Code session files, imported as turns through the HTTP API with the converter in
 * support/claude-code.ts; the tree, its branch points and the active branch read back over HTTP
 * must be exactly what the converter computed from the file.
 */
describe('importing real Claude Code sessions through the API', () => {
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

  it('has the fixtures', () => {
    expect(FILES.length).toBeGreaterThanOrEqual(10);
  });

  it.each(FILES)('%s', async (file) => {
    const conversion = convertClaudeCode(fs.readFileSync(path.join(DIR, file), 'utf8'));
    const { turns, stats } = conversion;
    const id = await c.start({ title: file });
    for (const [i, t] of turns.entries()) {
      const r = await c.post(c.conv(id, '/turns'), {
        turnId: `turn-${i}`,
        parentId: t.parentId,
        messages: t.messages,
      });
      if (r.status !== 201) throw new Error(`turn ${i} of ${file}: ${r.status} ${r.text}`);
      expect(r.body.messageIds).toEqual(t.messages.map((m) => m.id));
    }
    let moved = false;
    if ((await c.conversation(id)).tip !== conversion.expectedTip) {
      await c.moveTip(id, conversion.expectedTip as string);
      moved = true;
    }

    // The tree: exactly the committed messages, linked as the file links them.
    const tree = await c.tree(id);
    expect(tree.tip).toBe(conversion.expectedTip);
    expect(new Map(tree.nodes.map((n) => [n.id, n.parentId]))).toEqual(conversion.parents);
    expect([...tree.branchPoints].sort()).toEqual([...conversion.branchPoints].sort());
    for (const n of tree.nodes)
      expect(n.children.length).toBe(
        [...conversion.parents.values()].filter((p) => p === n.id).length,
      );
    // The active branch: the one the file's last record is on.
    expect(await c.branchIds(id)).toEqual(conversion.activeBranch);
    // Every message comes back with the content that was sent (thinking signatures, images...).
    const exported = (await c.get(c.conv(id, '/export?format=jsonl&scope=tree'))).text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { id: string; content: unknown });
    const sent = new Map(turns.flatMap((t) => t.messages).map((m) => [m.id, m.content]));
    expect(exported).toHaveLength(sent.size);
    for (const m of exported) expect(m.content).toEqual(sent.get(m.id));

    const committedMessages = sent.size - (sent.has(SYNTHETIC_PROMPT_ID) ? 1 : 0);
    report.push(
      `  ${file}: ${turns.length} turns, ${committedMessages} messages from ` +
        `${stats.coveredRecords}/${stats.messageRecords} message records ` +
        `(${stats.lines} lines); branch points ${conversion.branchPoints.length}; ` +
        `active branch ${conversion.activeBranch.length}${moved ? ' (tip moved)' : ''}; ` +
        `left out: ${JSON.stringify(stats.skipped)}`,
    );
    // Most of each file makes it in.
    expect(turns.length).toBeGreaterThanOrEqual(1);
    expect(stats.coveredRecords / stats.messageRecords).toBeGreaterThanOrEqual(0.85);
    expect(conversion.activeBranch.length).toBeGreaterThan(0);
  });

  it('keeps the real branch of experiments-ideas: two prompts under one answer', async () => {
    const file = FILES.find((f) => f.startsWith('experiments-ideas__'));
    expect(file).toBeDefined();
    const conversion = convertClaudeCode(fs.readFileSync(path.join(DIR, file as string), 'utf8'));
    // The answer both edited prompts hang on (through a system record in the file).
    expect(conversion.branchPoints).toEqual(['3220c04b-b0dc-48b5-845b-3c1c10f6a684']);
    // The file's last records (an /exit under the second prompt's branch) pick that branch.
    expect(conversion.expectedTip).toBe('18037c5a-b000-42c9-a689-06fa14b1300d');
    expect(conversion.activeBranch.some((x) => x.startsWith('9edc38e6'))).toBe(true);
    expect(conversion.activeBranch.some((x) => x.startsWith('5270777a'))).toBe(false);
  });
});
