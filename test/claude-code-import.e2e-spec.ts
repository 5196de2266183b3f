import fs from 'node:fs';
import path from 'node:path';
import { clientFor, type Client } from './support/api';
import { type Conversion, convertClaudeCode, SYNTHETIC_PROMPT_ID } from './support/claude-code';
import { type Harness, startHarness } from './support/harness';

const DIR = path.resolve(__dirname, '../../shared/fixtures/real/claude-code');
const FILES = fs.existsSync(DIR) ? fs.readdirSync(DIR).filter((f) => f.endsWith('.jsonl')) : [];

/**
 * Real Claude Code session files, imported as turns through the HTTP API with the converter in
 * support/claude-code.ts; the tree, its branch points and the active branch read back over HTTP
 * must be exactly what the converter computed from the file.
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

  /** Commits every converted turn, then checks tree, branch points, active branch and bytes. */
  const importAndVerify = async (name: string, conversion: Conversion): Promise<string> => {
    const { turns, stats } = conversion;
    const id = await c.start({ title: name });
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
    if ((await c.conversation(id)).tip !== conversion.expectedTip) {
      await c.moveTip(id, conversion.expectedTip as string);
      moved = true;
    }
    // The tree: exactly the committed messages, linked as the file links them.
    const tree = await c.tree(id);
    expect(tree.tip).toBe(conversion.expectedTip);
    expect(new Map(tree.nodes.map((n) => [n.id, n.parentId]))).toEqual(conversion.parents);
    expect([...tree.branchPoints].sort()).toEqual([...conversion.branchPoints].sort());
    const parentIds = [...conversion.parents.values()];
    for (const n of tree.nodes)
      expect(n.children.length).toBe(parentIds.filter((p) => p === n.id).length);
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

    const messages = sent.size - (sent.has(SYNTHETIC_PROMPT_ID) ? 1 : 0);
    report.push(
      `  ${name}: ${turns.length} turns, ${messages} messages from ` +
        `${stats.coveredRecords}/${stats.messageRecords} message records ` +
        `(${stats.lines} lines); branch points ${conversion.branchPoints.length}; ` +
        `active branch ${conversion.activeBranch.length}${moved ? ' (tip moved)' : ''}; ` +
        `left out: ${JSON.stringify(stats.skipped)}`,
    );
    return id;
  };

  it('has the fixtures', () => {
    expect(FILES.length).toBeGreaterThanOrEqual(10);
  });

  it.each(FILES)('%s', async (file) => {
    const conversion = convertClaudeCode(fs.readFileSync(path.join(DIR, file), 'utf8'));
    await importAndVerify(file, conversion);
    // Most of each file makes it in.
    expect(conversion.turns.length).toBeGreaterThanOrEqual(1);
    expect(
      conversion.stats.coveredRecords / conversion.stats.messageRecords,
    ).toBeGreaterThanOrEqual(0.85);
    expect(conversion.activeBranch.length).toBeGreaterThan(0);
  });

  it('keeps the real branch of experiments-ideas: two prompts under one answer', () => {
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

  it('applies every converter rule on a synthetic file, and the result imports', async () => {
    const text = (t: string) => ({ type: 'text', text: t });
    const rec = (
      type: string,
      uuid: string,
      parentUuid: string | null,
      message?: Record<string, unknown>,
    ) => ({ type, uuid, parentUuid, ...(message ? { message } : {}) });
    const a = (id: string, content: unknown[]) => ({ id, role: 'assistant', content });
    const u = (content: unknown) => ({ role: 'user', content });
    const records = [
      rec('user', 'u1', null, u('hello')),
      rec('system', 's1', 'u1'),
      rec('assistant', 'a1', 's1', a('m1', [{ type: 'thinking', thinking: 'x', signature: '' }])),
      rec('assistant', 'a2', 'a1', a('m1', [text('let me look')])),
      rec(
        'assistant',
        'a3',
        'a2',
        a('m1', [{ type: 'tool_use', id: 't1', name: 'ls', input: {} }]),
      ),
      rec('assistant', 'a4', 'a3', a('m1', [{ type: 'tool_use', id: 't2', name: 'x', input: {} }])),
      rec('progress', 'p1', 'a3'),
      rec('user', 'r1', 'p1', u([{ type: 'tool_result', tool_use_id: 't1', content: 'files' }])),
      { type: 'file-history-snapshot', snapshot: {} },
      rec('assistant', 'a5', 'r1', a('m2', [text('done')])),
      rec(
        'user',
        'u2',
        'a5',
        u([{ type: 'tool_result', tool_use_id: 'ghost', content: 'x' }, text('next')]),
      ),
      rec('assistant', 'a6', 'u2', a('m3', [text('ok')])),
      rec('attachment', 'at1', 'a5'),
      rec('user', 'u3', 'at1', u('edited next')),
      rec('user', 'u4', 'u3', u([text('and more'), text('')])),
      rec('assistant', 'a7', 'u4', a('m4', [text('ok 2')])),
      rec('user', 'u5', 'a7', u('never answered')),
      { type: 'summary', leafUuid: 'nowhere' },
    ];
    const conversion = convertClaudeCode(records.map((r) => JSON.stringify(r)).join('\n'));
    expect(conversion.turns.map((t) => [t.parentId, t.messages.map((m) => m.id)])).toEqual([
      [null, ['u1', 'a1', 'r1', 'a5']],
      ['a5', ['u2', 'a6']],
      ['a5', ['u3', 'a7']],
    ]);
    const [t1, t2, t3] = conversion.turns.map((t) => t.messages);
    expect(t1[1].content).toEqual([
      text('let me look'),
      { type: 'tool_use', id: 't1', name: 'ls', input: {} },
    ]);
    expect(t2[0].content).toEqual([text('next')]);
    expect(t3[0].content).toEqual([text('edited next'), text('and more')]);
    expect(conversion.branchPoints).toEqual(['a5']);
    expect(conversion.expectedTip).toBe('a7');
    expect(conversion.activeBranch).toEqual(['u1', 'a1', 'r1', 'a5', 'u3', 'a7']);
    expect(conversion.stats.skipped).toEqual({
      'thinking without signature': 1,
      'tool_use without its tool_result': 1,
      'tool_result without its tool_use': 1,
      'empty text': 1,
      'file-history-snapshot record without uuid': 1,
      'summary record without uuid': 1,
      'message records in no committed turn': 1,
    });
    await importAndVerify('synthetic', conversion);
  });

  it('copies a prefix shared by two answers (a branch inside a tool loop) under new ids', async () => {
    const line = (uuid: string, parentUuid: string | null, role: string, content: unknown) =>
      JSON.stringify({ type: role, uuid, parentUuid, message: { id: `m-${uuid}`, role, content } });
    const conversion = convertClaudeCode(
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
    expect(conversion.turns.map((t) => [t.parentId, t.messages.map((m) => m.id)])).toEqual([
      [null, ['u0', 'a0']],
      ['a0', ['u1', 'a1', 'r1', 'a2']],
      ['a0', ['u1-2', 'a1-2', 'r1-2', 'a3']],
    ]);
    expect(conversion.branchPoints).toEqual(['a0']);
    expect(conversion.activeBranch).toEqual(['u0', 'a0', 'u1-2', 'a1-2', 'r1-2', 'a3']);
    await importAndVerify('synthetic branch in a tool loop', conversion);
  });
});
