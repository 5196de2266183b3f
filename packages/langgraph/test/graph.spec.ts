/**
 * A real LangGraph `StateGraph` (a model node on `ChatOpenAI`, an approval interrupt, a tool
 * node) against a local server speaking OpenAI's Chat Completions API, checkpointed by
 * `ArborSaver` in the real app: paused for approval, Arbor restarted and a new process's saver
 * and graph resume it; then time travel — `updateState` on an old checkpoint — makes a new
 * branch in the Arbor conversation's tree.
 */
import { HumanMessage } from '@langchain/core/messages';
import { Command, START } from '@langchain/langgraph';
import { ArborClient } from '@arbor/client';
import { type Harness, startHarness } from '../../../test/support/harness';
import { ArborSaver } from '../src';
import { agentGraph, type MockChat, startMockChat } from './support';

const shape = (m: { role: string; content: readonly { type: string }[] }) =>
  `${m.role}:${m.content.map((b) => b.type).join('+')}`;

describe('@arbor/langgraph with a StateGraph', () => {
  let h: Harness;
  let mock: MockChat;
  let apiKey: string;
  beforeAll(async () => {
    h = await startHarness();
    mock = await startMockChat();
    apiKey = (await h.createTenant('langgraph')).apiKey;
  });
  afterAll(async () => {
    await mock.close();
    await h.destroy();
  });
  const client = () => new ArborClient({ baseUrl: h.baseUrl, apiKey });
  /** A fresh saver and graph: what a new process builds. */
  const fresh = () => {
    const saver = new ArborSaver({ client: client() });
    return { saver, ...agentGraph(mock.baseURL, saver) };
  };
  const branch = async (id: string) => {
    const out: string[] = [];
    for await (const m of client().messages(id)) out.push(shape(m));
    return out;
  };
  const appended = async (id: string) => {
    let n = 0;
    for await (const e of client().events(id)) if (e.type === 'MessageAppended') n++;
    return n;
  };

  it('pauses for approval, survives a restart, resumes from the checkpoint, and forks', async () => {
    const config = { configurable: { thread_id: 'support-42' } };
    const first = fresh();
    const paused = await first.graph.invoke(
      { messages: [new HumanMessage('Please delete notes.txt')] },
      config,
    );
    expect((paused as { __interrupt__?: { value: unknown }[] }).__interrupt__?.[0]?.value).toEqual({
      approve: [{ path: 'notes.txt' }],
    });
    expect(first.ran).toEqual([]);

    await h.restart();
    const second = fresh();
    const state = await second.graph.getState(config);
    expect(state.next).toEqual(['approve']);
    expect(state.values.messages.map((m: { getType(): string }) => m.getType())).toEqual([
      'human',
      'ai',
    ]);
    const done = await second.graph.invoke(new Command({ resume: 'yes' }), config);
    expect(second.ran).toEqual(['delete_file notes.txt']);
    expect(done.messages.at(-1)?.content).toBe('Done: deleted notes.txt');

    const ids = await second.saver.conversationsOf('support-42');
    if (!ids) throw new Error('no conversations');
    expect(await branch(ids.messages)).toEqual([
      'user:text',
      'assistant:tool_use',
      'user:tool_result',
      'assistant:text',
    ]);

    await second.graph.invoke(
      { messages: [new HumanMessage('Weather in Paris and Rome?')] },
      config,
    );
    expect(second.ran).toEqual(['delete_file notes.txt', 'get_weather Paris', 'get_weather Rome']);
    expect(await branch(ids.messages)).toHaveLength(8);
    // Each message once, although ~10 checkpoints held the growing list.
    expect(await appended(ids.messages)).toBe(8);

    // Time travel: back to the checkpoint after the first answer, ask something else there.
    let old: typeof config | undefined;
    for await (const s of second.graph.getStateHistory(config))
      if (s.values.messages?.length === 4 && s.next.length === 0) old = s.config as typeof config;
    if (!old) throw new Error('no checkpoint after the first answer');
    // As the graph's input (START), so the agent runs next.
    const forkConfig = await second.graph.updateState(
      old,
      { messages: [new HumanMessage('Weather in Oslo?')] },
      START,
    );
    const forked = await second.graph.invoke(null, forkConfig);
    expect(forked.messages.at(-1)?.content).toBe('Done: Oslo: 12 °C');
    expect(forked.messages).toHaveLength(8);

    const tree = await client().tree(ids.messages);
    // The fork hangs on the first answer, beside the Paris question: a branch point.
    expect(tree.branchPoints).toHaveLength(1);
    expect(await appended(ids.messages)).toBe(12);
    // The latest state is the fork's; the Paris branch is still readable from its checkpoint.
    const latest = await fresh().graph.getState(config);
    expect(latest.values.messages.at(-1).content).toBe('Done: Oslo: 12 °C');
  });
});
