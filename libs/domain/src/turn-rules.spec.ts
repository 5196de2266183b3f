import fc from 'fast-check';
import { type Block, type MessageInput } from './messages';
import { checkTurn, type TurnViolationCode } from './turn-rules';
import { arbTurn } from './testing/arbitraries';

const text = (t: string): Block => ({ type: 'text', text: t });
const use = (id: string): Block => ({ type: 'tool_use', id, name: 'tool', input: {} });
const result = (id: string): Block => ({ type: 'tool_result', tool_use_id: id, content: 'ok' });
const u = (...content: Block[]): MessageInput => ({ role: 'user', content });
const a = (...content: Block[]): MessageInput => ({ role: 'assistant', content });
const s = (...content: Block[]): MessageInput => ({ role: 'system', content });

const codes = (messages: MessageInput[], atRoot = false, idExists?: (id: string) => boolean) =>
  checkTurn(messages, { atRoot, idExists }).map((v) => `${v.path}:${v.code}`);

describe('checkTurn', () => {
  it('accepts every valid generated turn, at the root or not', () => {
    fc.assert(
      fc.property(arbTurn({ withSystem: true, openEnds: true }), (turn) => {
        expect(checkTurn(turn, { atRoot: true })).toEqual([]);
      }),
    );
    fc.assert(
      fc.property(arbTurn({ openEnds: true }), (turn) => {
        expect(checkTurn(turn, { atRoot: false })).toEqual([]);
      }),
    );
  });

  it('accepts parallel tool calls answered in one message, then text after the results', () => {
    expect(
      codes([
        u(text('go')),
        a(use('x'), use('y')),
        u(result('y'), result('x'), text('note')),
        a(text('done')),
      ]),
    ).toEqual([]);
  });

  it('rejects an empty turn and empty messages', () => {
    expect(codes([])).toEqual(['messages:empty_turn']);
    expect(codes([u(), a(text('x'))])).toEqual(['messages[0].content:empty_message']);
  });

  it('requires the turn to open with a user message (system only at the root)', () => {
    expect(codes([a(text('x'))])).toEqual(['messages[0].role:role_order']);
    expect(codes([s(text('sys')), u(text('q')), a(text('x'))])).toEqual([
      'messages[0].role:role_order',
    ]);
    expect(codes([s(text('sys')), u(text('q')), a(text('x'))], true)).toEqual([]);
    expect(codes([u(text('q')), s(text('sys')), a(text('x'))], true)).toContain(
      'messages[1].role:role_order',
    );
  });

  it('requires alternation', () => {
    expect(codes([u(text('a')), u(text('b')), a(text('x'))])).toEqual([
      'messages[1].role:role_order',
    ]);
    expect(codes([u(text('a')), a(use('t')), a(text('x'))])).toEqual(
      expect.arrayContaining([
        'messages[2].role:role_order',
        'messages[1].content[0]:unanswered_tool_use',
      ]),
    );
  });

  it('requires the turn to end with an assistant message or with answered tool results', () => {
    expect(codes([u(text('a'))])).toEqual(['messages[0]:must_end_with_assistant']);
    // Tool results that answer every call of the message before end a turn too.
    expect(codes([u(text('go')), a(use('x'), use('y')), u(result('x'), result('y'))])).toEqual([]);
    expect(codes([u(text('go')), a(use('x')), u(result('x'), text('note'))])).toEqual([]);
    // ...but every call must still be answered, and a plain user message never ends a turn.
    expect(codes([u(text('go')), a(use('x'), use('y')), u(result('x'))])).toEqual([
      'messages[1].content[1]:unanswered_tool_use',
    ]);
    expect(codes([u(text('go')), a(use('x')), u(result('x')), a(text('b')), u(text('c'))])).toEqual(
      ['messages[4]:must_end_with_assistant', 'messages[3]:multiple_turns'],
    );
  });

  it('after a turn that ended on tool results, the next opens with the assistant continuing', () => {
    const after = (messages: MessageInput[]) =>
      checkTurn(messages, { atRoot: false, continues: true }).map((v) => `${v.path}:${v.code}`);
    expect(after([a(text('done'))])).toEqual([]);
    expect(after([a(use('z')), u(result('z')), a(text('done'))])).toEqual([]);
    expect(after([a(use('z')), u(result('z'))])).toEqual([]);
    expect(after([u(text('q')), a(text('x'))])).toEqual(['messages[0].role:role_order']);
    // Without `continues`, an assistant opening is refused as before.
    expect(codes([a(text('done'))])).toEqual(['messages[0].role:role_order']);
  });

  it('rejects a final answer in the middle of a turn', () => {
    expect(codes([u(text('a')), a(text('b')), u(text('c')), a(text('d'))])).toEqual([
      'messages[1]:multiple_turns',
    ]);
  });

  it('rejects a tool_use left unanswered, at the end or by the next message', () => {
    expect(codes([u(text('a')), a(use('t'))])).toEqual([
      'messages[1].content[0]:unanswered_tool_use',
    ]);
    // Parallel calls must all be answered in the one next message.
    expect(codes([u(text('a')), a(use('x'), use('y')), u(result('x')), a(text('z'))])).toEqual([
      'messages[1].content[1]:unanswered_tool_use',
    ]);
  });

  it('rejects tool_results that answer nothing in the message just before', () => {
    expect(codes([u(result('t'), text('a')), a(text('b'))])).toEqual([
      'messages[0].content[0]:orphan_tool_result',
    ]);
    const late = [
      u(text('a')),
      a(use('x')),
      u(result('x')),
      a(use('y')),
      u(result('y'), result('x')),
      a(text('z')),
    ];
    expect(codes(late)).toEqual(['messages[4].content[1]:orphan_tool_result']);
  });

  it('requires tool_results before any other block', () => {
    expect(codes([u(text('a')), a(use('x')), u(text('note'), result('x')), a(text('z'))])).toEqual([
      'messages[2].content[1]:tool_result_after_content',
    ]);
  });

  it('rejects a tool answered twice and a tool_use id used twice', () => {
    expect(codes([u(text('a')), a(use('x')), u(result('x'), result('x')), a(text('z'))])).toEqual([
      'messages[2].content[1]:duplicate_tool_result',
    ]);
    const twice = [
      u(text('a')),
      a(use('x')),
      u(result('x')),
      a(use('x')),
      u(result('x')),
      a(text('z')),
    ];
    expect(codes(twice)).toEqual(['messages[3].content[0]:duplicate_tool_use_id']);
  });

  it('rejects message ids used twice in the turn or already in the conversation', () => {
    const turn: MessageInput[] = [
      { id: 'm1', role: 'user', content: [text('a')] },
      { id: 'm1', role: 'assistant', content: [text('b')] },
    ];
    expect(codes(turn)).toEqual(['messages[1].id:duplicate_message_id']);
    const taken = (id: string) => id === 'm0';
    expect(
      codes([{ id: 'm0', role: 'user', content: [text('a')] }, a(text('b'))], false, taken),
    ).toEqual(['messages[0].id:duplicate_message_id']);
  });

  it('catches any single dropped tool_result of a valid turn', () => {
    const withTools = arbTurn({ maxToolRounds: 3 }).filter((t) =>
      t.some((m) => m.content.some((b) => b.type === 'tool_result')),
    );
    fc.assert(
      fc.property(withTools, fc.nat(), (turn, pick) => {
        const spots = turn.flatMap((m, i) =>
          m.content.flatMap((b, j) => (b.type === 'tool_result' ? [[i, j] as const] : [])),
        );
        const [i, j] = spots[pick % spots.length];
        const broken = turn.map((m, k) =>
          k === i ? { ...m, content: m.content.filter((_, n) => n !== j) } : m,
        );
        const found = checkTurn(broken, { atRoot: false }).map((v) => v.code);
        const expected: TurnViolationCode[] =
          broken[i].content.length === 0
            ? ['empty_message', 'unanswered_tool_use']
            : ['unanswered_tool_use'];
        expect(found).toEqual(expect.arrayContaining(expected));
      }),
    );
  });
});
