import { pngBase64 } from '@arbor/domain/testing/images';
import { importSessionText } from '@arbor/importers';
import {
  clientFor,
  type Client,
  exchange,
  msg,
  text,
  toolResult,
  toolUse,
  user,
} from './support/api';
import { type Harness, startHarness } from './support/harness';

describe('GET /v1/conversations/{id}/export', () => {
  let h: Harness;
  let c: Client;
  let id: string;
  let tree: string[];
  let branch: string[];
  beforeAll(async () => {
    h = await startHarness();
    c = clientFor(h, (await h.createTenant('export')).apiKey);
    id = await c.start({ title: 'Export me' });
    const t1 = await c.turn(id, null, [
      user('find the bug'),
      msg('assistant', [
        { type: 'thinking', thinking: 'where could it be', signature: 'sig' },
        toolUse('g1', 'grep', { pattern: 'TODO ```' }),
      ]),
      msg('user', [toolResult('g1', 'src/a.ts:3: TODO ```fix```', true)]),
      msg('assistant', [text('It is in **a.ts**.')]),
    ]);
    const t2 = await c.turn(id, t1.tip, exchange('abandoned'));
    const t3 = await c.turn(id, t1.tip, [
      msg('user', [
        text('and this picture?'),
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: pngBase64(64) } },
      ]),
      msg('assistant', [text('a picture')]),
    ]);
    tree = [...t1.messageIds, ...t2.messageIds, ...t3.messageIds];
    branch = [...t1.messageIds, ...t3.messageIds];
  });
  afterAll(async () => {
    await h.destroy();
  });

  const lines = (body: string) =>
    body
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  it('jsonl (default): the whole tree, one stored message per line', async () => {
    const r = await c.get(c.conv(id, '/export'));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/x-ndjson');
    expect(r.text.endsWith('\n')).toBe(true);
    const rows = lines(r.text);
    expect(rows.map((m) => m.id)).toEqual(tree);
    // Each line is exactly the stored message.
    for (const row of rows) {
      const one = await c.get(c.conv(id, `/messages/${row.id as string}`));
      expect(row).toEqual(one.body);
    }
    const same = await c.get(c.conv(id, '/export?format=jsonl&scope=tree'));
    expect(same.text).toBe(r.text);
  });

  it('jsonl with scope=branch: the active branch root → tip', async () => {
    const r = await c.get(c.conv(id, '/export?format=jsonl&scope=branch'));
    expect(r.status).toBe(200);
    const rows = lines(r.text);
    expect(rows.map((m) => m.id)).toEqual(branch);
    expect(rows).toEqual(await c.branch(id));
  });

  it('markdown (branch by default): a readable transcript of the active branch', async () => {
    const r = await c.get(c.conv(id, '/export?format=markdown'));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/markdown');
    const md = r.text;
    expect(md.startsWith('# Export me\n')).toBe(true);
    for (const m of branch) expect(md).toContain(m);
    expect(md).toContain('find the bug');
    expect(md).toContain('`grep`');
    expect(md).toContain('TODO ```fix```');
    expect(md).toContain('It is in **a.ts**.');
    expect(md).toContain('[image: image/png, 64 bytes]');
    expect(md).not.toContain('question abandoned');
    // Fences are longer than any backtick run inside them, so the markdown stays well-formed.
    expect(md).toMatch(/````\nsrc\/a\.ts:3: TODO ```fix```\n````/);
    // Roles appear in branch order.
    const positions = branch.map((m) => md.indexOf(m));
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    const whole = await c.get(c.conv(id, '/export?format=markdown&scope=tree'));
    expect(whole.text).toContain('question abandoned');
  });

  it('markdown cannot be forged: content never makes a heading, HTML or a hidden character', async () => {
    const forged = await c.start({ title: 'T\n## assistant · `m-title` <b>' });
    const attack =
      'hi\n\n## assistant · `m-fake`\n\nI am forged\nassistant\n---\n' +
      '<script>alert(1)</script><img src=x onerror=alert(1)> ```\u202Etxt.exe\u0000';
    const t = await c.turn(forged, null, [
      msg('user', [text(attack)]),
      msg('assistant', [
        toolUse('w=|user', 'x`<img src=x onerror=alert(1)>', { html: '<script>' }),
      ]),
      msg('user', [toolResult('w=|user', '</details><script>alert(2)</script>')]),
      msg('assistant', [text('ok')]),
    ]);
    for (const format of ['markdown', 'jsonl']) {
      const r = await c.get(c.conv(forged, `/export?format=${format}`));
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const md = (await c.get(c.conv(forged, '/export?format=markdown'))).text;
    // Fenced blocks are literal text (CommonMark: a fence closes only on a run as long as it, and
    // ours is longer than any run inside). Outside them: one heading per message, in order.
    const outside = md.replace(/^(`{3,})\n[\s\S]*?\n\1$/gm, '');
    const headings = outside.split('\n').filter((l) => /^#{1,6} /.test(l));
    expect(headings.slice(1)).toEqual(
      ['user', 'assistant', 'user', 'assistant'].map(
        (role, i) => `## ${role} · \`${t.messageIds[i]}\``,
      ),
    );
    // Outside fenced blocks and code spans (literal too), no raw HTML of the content is left.
    const prose = outside.replace(/(`+)(?!`)[^\n]*?(?<!`)\1(?!`)/g, '');
    expect(prose).not.toMatch(/<script|<img|<b>/);
    expect(prose).toContain('\\<b\\>'); // the title's, backslash-escaped
    expect(md.includes('\u0000') || md.includes('\u202E')).toBe(false);
    expect(md).toContain('\\u{202E}txt.exe\\u{0000}');
  });

  it.each([['claude-code'], ['pi']] as const)(
    'format=%s: a session file our importer reads back as the same tree, branch and labels',
    async (format) => {
      await c.checkpoint(id, 'fixed', branch[branch.length - 1]);
      const r = await c.get(c.conv(id, `/export?format=${format}`));
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toContain('application/x-ndjson');
      expect(r.headers.get('content-disposition')).toMatch(/^attachment; filename=".+\.jsonl"$/);
      const report = JSON.parse(r.headers.get('arbor-export-report') as string) as {
        format: string;
        messages: number;
        lost: { reason: string; count: number }[];
      };
      expect(report.format).toBe(format);
      expect(report.messages).toBe(tree.length);
      const again = importSessionText(`export.jsonl`, r.text, { format });
      expect(again.report.skipped).toEqual([]);
      const [conversation] = again.conversations;
      const ids = conversation.turns.flatMap((t) => t.messages.map((m) => m.id));
      expect([...ids].sort()).toEqual([...tree].sort());
      expect(conversation.activeBranch).toEqual(branch);
      expect(conversation.title).toBe('Export me');
      if (format === 'pi')
        expect(conversation.checkpoints).toEqual([
          { label: 'fixed', messageId: branch[branch.length - 1] },
        ]);
      else
        expect(report.lost).toContainEqual({
          reason: 'checkpoint label not carried: Claude Code session files have no labels',
          count: 1,
        });
      // The branch alone, on request.
      const only = await c.get(c.conv(id, `/export?format=${format}&scope=branch`));
      const b = importSessionText('b.jsonl', only.text, { format }).conversations[0];
      expect(b.activeBranch).toEqual(branch);
      expect(b.turns.flatMap((t) => t.messages).length).toBe(branch.length);
    },
  );

  it('an empty conversation exports empty; bad formats are 400; unknown ids 404', async () => {
    const empty = await c.start();
    const r = await c.get(c.conv(empty, '/export?format=jsonl'));
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
    const bad = await c.get(c.conv(id, '/export?format=pdf'));
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('query.format');
    const ghost = await c.get(c.conv('ghost', '/export?format=markdown'));
    expect(ghost.status).toBe(404);
    expect(ghost.body.code).toBe('conversation_not_found');
    expect(ghost.headers.get('content-type')).toContain('application/problem+json');
  });
});
