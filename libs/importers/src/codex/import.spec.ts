import { detectFormat } from '../detect';
import { commitConversation, toolResultTurnEnds, treeProblems } from '../testing/commit';
import { jsonl, type Rec } from '../testing/records';
import { importCodex } from './import';

// Records in the shape Codex writes them (`RolloutLine`: timestamp, type, payload).
const line = (type: string, payload: Rec): Rec => ({
  timestamp: '2026-05-11T10:00:00.000Z',
  type,
  payload,
});
const meta = () =>
  line('session_meta', {
    id: 'sess-1',
    cwd: '/w',
    originator: 'codex_cli_rs',
    cli_version: '0.50.0',
  });
const item = (payload: Rec) => line('response_item', payload);
const user = (t: string) =>
  item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: t }] });
const answer = (t: string) =>
  item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: t }] });
const call = (id: string, args: unknown = '{"cmd":"ls"}') =>
  item({ type: 'function_call', name: 'exec_command', arguments: args, call_id: id });
const output = (id: string, out: unknown = 'ok') =>
  item({ type: 'function_call_output', call_id: id, output: out });
const event = (payload: Rec) => line('event_msg', payload);
// 1x1 PNG
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const load = (records: Rec[]) =>
  importCodex('/s/rollout-2026-05-11T10-00-00-sess-1.jsonl', jsonl(records));
const messages = (r: ReturnType<typeof load>) =>
  r.conversations[0].turns.flatMap((t) => t.messages);
const reasonsAt = (notes: { line: number; reason: string }[], l: number) =>
  notes.filter((n) => n.line === l).map((n) => n.reason);
const expectSound = (r: ReturnType<typeof load>) => {
  for (const c of r.conversations) {
    const { session, failures } = commitConversation(c);
    expect(failures).toEqual([]);
    expect(treeProblems(session)).toEqual([]);
    expect(session.state.tip).toBe(c.tip);
  }
};

describe('Codex rollout importer', () => {
  it('is detected by its rollout lines', () => {
    expect(detectFormat(jsonl([meta(), user('hi')]))).toBe('codex');
    expect(detectFormat(jsonl([user('hi')]))).toBe('codex');
    expect(detectFormat(jsonl([{ type: 'user', uuid: 'u' }]))).toBe('claude-code');
  });

  it('merges one response (text, parallel calls) into one assistant message and pairs outputs', () => {
    const r = load([
      /* 1 */ meta(),
      /* 2 */ line('turn_context', { model: 'gpt-5-codex', cwd: '/w' }),
      /* 3 */ user('list and read'),
      /* 4 */ event({ type: 'user_message', message: 'list and read' }),
      /* 5 */ item({ type: 'reasoning', summary: [], encrypted_content: 'gAAA' }),
      /* 6 */ answer('Looking.'),
      /* 7 */ call('c1'),
      /* 8 */ call('c2', '{"cmd":"cat a"}'),
      /* 9 */ event({
        type: 'token_count',
        info: {
          last_token_usage: { input_tokens: 100, cached_input_tokens: 40, output_tokens: 7 },
        },
      }),
      /* 10 */ output('c1', 'a\nb'),
      /* 11 */ output('c2', 'A'),
      /* 12 */ event({ type: 'exec_command_end', call_id: 'c2' }),
      /* 13 */ answer('Two files.'),
    ]);
    expectSound(r);
    const ms = messages(r);
    expect(ms.map((m) => [m.id, m.role])).toEqual([
      ['L3', 'user'],
      ['L5', 'assistant'], // the response opens with its reasoning item
      ['L10', 'user'],
      ['L13', 'assistant'],
    ]);
    expect(ms[1].content.map((b) => b.type)).toEqual(['reasoning', 'text', 'tool_use', 'tool_use']);
    // The reasoning item, byte-exact (Codex keeps no id on it).
    expect(ms[1].content[0]).toEqual({ type: 'reasoning', summary: [], encrypted_content: 'gAAA' });
    expect(ms[1].content[3]).toEqual({
      type: 'tool_use',
      id: 'c2',
      name: 'exec_command',
      input: { cmd: 'cat a' },
    });
    expect(ms[1].model).toBe('gpt-5-codex');
    // OpenAI counts cached input inside input_tokens; Arbor does not.
    expect(ms[1].usage).toEqual({
      input_tokens: 60,
      output_tokens: 7,
      cache_read_input_tokens: 40,
    });
    expect(ms[2].content.map((b) => (b.type === 'tool_result' ? b.tool_use_id : b.type))).toEqual([
      'c1',
      'c2',
    ]);
    expect(reasonsAt(r.report.skipped, 4)[0]).toMatch(/^event_msg user_message \(the same prompt/);
    expect(reasonsAt(r.report.skipped, 5)).toEqual([]);
    expect(reasonsAt(r.report.skipped, 12)[0]).toMatch(/^event_msg exec_command_end/);
    expect(r.conversations[0].metadata).toMatchObject({
      source: { format: 'codex', sessionId: 'sess-1', cwd: '/w', cliVersion: '0.50.0' },
    });
  });

  it('reports a call that never got its output (an interrupted run) and keeps the turn valid', () => {
    const r = load([
      /* 1 */ meta(),
      /* 2 */ user('run the tests'),
      /* 3 */ call('c1', '{"cmd":"npm test"}'),
      /* 4 */ event({ type: 'turn_aborted', reason: 'interrupted' }),
      /* 5 */ user('never mind, say hi'),
      /* 6 */ answer('hi'),
    ]);
    expectSound(r);
    expect(r.report.skipped).toContainEqual({
      line: 3,
      reason: 'tool_use without its tool_result',
      detail: 'c1 (exec_command)',
    });
    const ms = messages(r);
    expect(ms.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(ms[0].content).toEqual([
      { type: 'text', text: 'run the tests' },
      { type: 'text', text: 'never mind, say hi' },
    ]);
  });

  it('imports custom tool calls, web searches, images and structured outputs', () => {
    const r = load([
      /* 1 */ meta(),
      /* 2 */ item({
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'what is this?' },
          { type: 'input_image', image_url: `data:image/png;base64,${PNG}` },
        ],
      }),
      /* 3 */ item({
        type: 'web_search_call',
        status: 'completed',
        action: { type: 'search', query: 'pixel' },
      }),
      /* 4 */ item({
        type: 'custom_tool_call',
        call_id: 'p1',
        name: 'apply_patch',
        input: '*** Begin Patch',
      }),
      /* 5 */ item({ type: 'custom_tool_call_output', call_id: 'p1', output: 'Done' }),
      /* 6 */ call('v1', '{"path":"a.png"}'),
      /* 7 */ output('v1', [
        { type: 'input_text', text: 'the image' },
        { type: 'input_image', image_url: `data:image/png;base64,${PNG}` },
      ]),
      /* 8 */ call('e1', 'not json'),
      /* 9 */ output('e1', { content: 'failed', success: false }),
      /* 10 */ answer('A white pixel.'),
    ]);
    expectSound(r);
    const ms = messages(r);
    expect(ms[0].content[1]).toMatchObject({
      type: 'image',
      source: { media_type: 'image/png', data: PNG },
    });
    expect(ms[1].content[0]).toMatchObject({ type: 'text' });
    expect(ms[1].content[1]).toEqual({
      type: 'tool_use',
      id: 'p1',
      name: 'apply_patch',
      input: { input: '*** Begin Patch' },
    });
    expect(ms[4].content[0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: 'v1',
      content: [{ type: 'text', text: 'the image' }, { type: 'image' }],
    });
    expect(ms[5].content[0]).toEqual({
      type: 'tool_use',
      id: 'e1',
      name: 'exec_command',
      input: { input: 'not json' },
    });
    expect(ms[6].content[0]).toEqual({
      type: 'tool_result',
      tool_use_id: 'e1',
      content: 'failed',
      is_error: true,
    });
    expect(reasonsAt(r.report.changed, 3)[0]).toMatch(/^web_search_call/);
    expect(reasonsAt(r.report.changed, 4)[0]).toMatch(/^custom tool call input/);
    expect(reasonsAt(r.report.changed, 8)[0]).toMatch(/^function call arguments that are not JSON/);
  });

  it('skips a compaction whose history is in the file, imports one that starts the file', () => {
    const history = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'earlier prompt' }] },
      {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'earlier answer' }],
      },
    ];
    const mid = load([
      /* 1 */ meta(),
      /* 2 */ user('one'),
      /* 3 */ answer('first'),
      /* 4 */ line('compacted', { message: 'summary', replacement_history: history }),
      /* 5 */ user('two'),
      /* 6 */ answer('second'),
    ]);
    expectSound(mid);
    expect(messages(mid).map((m) => m.id)).toEqual(['L2', 'L3', 'L5', 'L6']);
    expect(reasonsAt(mid.report.skipped, 4)[0]).toMatch(/^compacted record: its summary/);

    const start = load([
      /* 1 */ meta(),
      /* 2 */ line('compacted', { message: 'summary', replacement_history: history }),
      /* 3 */ user('two'),
      /* 4 */ answer('second'),
    ]);
    expectSound(start);
    expect(messages(start).map((m) => m.id)).toEqual(['L2-h0', 'L2-h1', 'L3', 'L4']);
    expect(reasonsAt(start.report.changed, 2)[0]).toMatch(/^compacted record at the start/);
  });

  it('takes the prompt from event_msg user_message when no response_item holds it', () => {
    const r = load([
      /* 1 */ meta(),
      /* 2 */ event({
        type: 'user_message',
        message: 'hello',
        images: [`data:image/png;base64,${PNG}`],
      }),
      /* 3 */ answer('hi'),
      /* 4 */ item({
        type: 'message',
        role: 'developer',
        content: [{ type: 'input_text', text: 'be brief' }],
      }),
      /* 5 */ user('again'),
      /* 6 */ answer('hi again'),
    ]);
    expectSound(r);
    const ms = messages(r);
    expect(ms[0].content.map((b) => b.type)).toEqual(['text', 'image']);
    expect(ms[2].content).toEqual([
      { type: 'text', text: 'be brief' },
      { type: 'text', text: 'again' },
    ]);
    expect(reasonsAt(r.report.changed, 2)[0]).toMatch(/^user prompt taken from event_msg/);
    expect(reasonsAt(r.report.changed, 4)[0]).toMatch(/^developer message imported as user text/);
  });

  it('imports a rollout that stops on tool outputs as a turn ending on them', () => {
    const r = load([
      /* 1 */ meta(),
      /* 2 */ user('hi'),
      /* 3 */ answer('hello'),
      /* 4 */ user('list and read'),
      /* 5 */ call('c1'),
      /* 6 */ call('c2', '{"cmd":"cat a"}'),
      /* 7 */ output('c1', 'a b'),
      /* 8 */ output('c2', 'text of a'),
      /* 9 */ event({ type: 'turn_aborted', reason: 'interrupted' }),
    ]);
    const turns = r.conversations[0].turns;
    expect(turns.map((t) => t.messages.map((m) => m.role))).toEqual([
      ['user', 'assistant'],
      ['user', 'assistant', 'user'],
    ]);
    const last = turns[1].messages;
    expect(last[1].content.map((b) => (b.type === 'tool_use' ? b.id : b.type))).toEqual([
      'c1',
      'c2',
    ]);
    expect(last[2].content.map((b) => (b.type === 'tool_result' ? b.tool_use_id : b.type))).toEqual(
      ['c1', 'c2'],
    );
    expect(r.conversations[0].tip).toBe(last[2].id);
    expect(r.report.skipped.filter((n) => n.line < 9)).toEqual([]);
    expect(toolResultTurnEnds(commitConversation(r.conversations[0]).session)).toEqual([
      last[2].id,
    ]);
    expectSound(r);
  });

  it('reports unparseable lines, unknown line types and a missing session_meta', () => {
    const r = importCodex(
      '/s/x.jsonl',
      `${JSON.stringify(user('a'))}\n{oops\n${JSON.stringify(line('mystery', {}))}\n${JSON.stringify(answer('b'))}\n`,
    );
    expect(r.report.skipped.map((n) => [n.line, n.reason])).toEqual([
      [0, 'no session_meta line'],
      [2, 'unparseable JSON'],
      [3, 'mystery line (not a rollout item)'],
    ]);
    expect(messages(r).map((m) => m.id)).toEqual(['L1', 'L4']);
  });
});
