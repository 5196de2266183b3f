import { foldEvents } from './evolve';
import { pmapEntries, pmapGet } from './persistent-map';
import { decodeState, encodeState, STATE_SNAPSHOT_VERSION } from './state-snapshot';
import { stateSnapshot } from './testing/invariants';
import { counterDeps, newSession, ok } from './testing/session';

const session = () => {
  const s = newSession(counterDeps('m'));
  ok(s, { type: 'start', conversationId: 'c', title: 'a title' });
  ok(s, {
    type: 'commitTurn',
    parentId: null,
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
    ],
  });
  return s;
};

describe('write-side state snapshots', () => {
  it('decode(encode(state)) is the state, and folding on from it equals folding the whole log', () => {
    const s = session();
    const decoded = decodeState(encodeState(s.state));
    expect(decoded).not.toBeNull();
    expect(stateSnapshot(decoded!)).toBe(stateSnapshot(s.state));
    expect(stateSnapshot(foldEvents(s.log))).toBe(stateSnapshot(decoded!));
  });

  it('refuses another version, a missing or extra field, a map that is not one, and bad JSON', () => {
    const text = encodeState(session().state);
    const parsed = JSON.parse(text) as { v: number; state: Record<string, unknown> };
    const variant = (f: (p: typeof parsed) => void) => {
      const copy = JSON.parse(text) as typeof parsed;
      f(copy);
      return JSON.stringify(copy);
    };
    expect(decodeState(variant((p) => (p.v = STATE_SNAPSHOT_VERSION + 1)))).toBeNull();
    expect(decodeState(variant((p) => delete p.state.turns))).toBeNull();
    expect(decodeState(variant((p) => (p.state.addedLater = 1)))).toBeNull();
    expect(decodeState(variant((p) => (p.state.messages = [])))).toBeNull();
    expect(decodeState(variant((p) => (p.state.messages = { pmap: [[1, {}]] })))).toBeNull();
    expect(decodeState(variant((p) => (p.state.revision = -1)))).toBeNull();
    const columns = (p: typeof parsed, map: 'messages' | 'turns') =>
      p.state[map] as Record<string, unknown[] | string>;
    const set = (
      p: typeof parsed,
      map: 'messages' | 'turns',
      column: string,
      at: number,
      v: unknown,
    ) => ((columns(p, map)[column] as unknown[])[at] = v);
    expect(decodeState(variant((p) => (columns(p, 'messages').roles = 'xa')))).toBeNull();
    expect(decodeState(variant((p) => (columns(p, 'messages').boundaries = '1')))).toBeNull();
    expect(
      decodeState(variant((p) => (columns(p, 'messages').tokens as unknown[]).pop())),
    ).toBeNull();
    expect(decodeState(variant((p) => set(p, 'messages', 'tokens', 0, '3')))).toBeNull();
    // A reference out of range, or not an integer, is refused; an id outside the map is kept.
    expect(decodeState(variant((p) => set(p, 'messages', 'parents', 1, 2)))).toBeNull();
    expect(decodeState(variant((p) => set(p, 'messages', 'parents', 1, 0.5)))).toBeNull();
    expect(decodeState(variant((p) => set(p, 'turns', 'messages', 0, [0, -1])))).toBeNull();
    expect(decodeState(variant((p) => set(p, 'turns', 'tips', 0, 7)))).toBeNull();
    expect(decodeState(variant((p) => set(p, 'turns', 'tips', 0, null)))).toBeNull();
    expect(decodeState(variant((p) => set(p, 'turns', 'revisions', 0, '3')))).toBeNull();
    expect(decodeState(variant((p) => (columns(p, 'messages').toolUses = [[0, []]])))).toBeNull();
    expect(
      decodeState(variant((p) => (columns(p, 'messages').toolUses = [[5, ['t']]]))),
    ).toBeNull();
    expect(
      decodeState(
        variant(
          (p) =>
            (columns(p, 'messages').toolUses = [
              [0, ['t']],
              [0, ['u']],
            ]),
        ),
      ),
    ).toBeNull();
    expect(decodeState(text.slice(0, -2))).toBeNull();
    expect(decodeState(text)).not.toBeNull();
    expect(parsed.v).toBe(2);
  });
});

describe('write-side state snapshots: message references', () => {
  it('stores each message id once and resolves parents, turn messages and tips to the same ids', () => {
    const s = session();
    ok(s, {
      type: 'commitTurn',
      parentId: s.state.tip,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'run it' }] },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls' } }],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_1',
              content: [{ type: 'text', text: 'a b' }],
            },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
      ],
    });
    const text = encodeState(s.state);
    const { messages, turns } = (JSON.parse(text) as { state: Record<string, unknown> }).state;
    const columns = JSON.stringify([messages, turns]);
    for (const [id] of pmapEntries(s.state.messages))
      expect(columns.split(`"${id}"`).length - 1).toBe(1);
    const decoded = decodeState(text);
    expect(decoded).not.toBeNull();
    expect(stateSnapshot(decoded!)).toBe(stateSnapshot(s.state));
  });

  it('keeps a reference to an id outside the message map as the id itself', () => {
    const s = session();
    const parsed = JSON.parse(encodeState(s.state)) as {
      state: { messages: { parents: unknown[] } };
    };
    const root = parsed.state.messages.parents.findIndex((p) => p === null);
    parsed.state.messages.parents[root] = 'elsewhere';
    const decoded = decodeState(JSON.stringify(parsed));
    const [id] = [...pmapEntries(s.state.messages)][root];
    expect(pmapGet(decoded!.messages, id)?.parentId).toBe('elsewhere');
  });
});
