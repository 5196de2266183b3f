import { foldEvents } from './evolve';
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
    const rowsOf = (p: typeof parsed, tag: string) =>
      (p.state[tag === 'nodes' ? 'messages' : 'turns'] as Record<string, unknown[][]>)[tag];
    expect(decodeState(variant((p) => (rowsOf(p, 'nodes')[0][2] = 'robot')))).toBeNull();
    expect(decodeState(variant((p) => rowsOf(p, 'nodes')[0].pop()))).toBeNull();
    expect(decodeState(variant((p) => (rowsOf(p, 'turns')[0][5] = '3')))).toBeNull();
    expect(decodeState(text.slice(0, -2))).toBeNull();
    expect(decodeState(text)).not.toBeNull();
    expect(parsed.v).toBe(1);
  });
});
