/**
 * @arbor/openai-agents with the real `@openai/agents` Runner and its OpenAI Responses model
 * against a local server speaking the Responses wire format (JSON and SSE, tool calls,
 * reasoning items, an error), storing in the real app, which restarts mid-conversation.
 */
import { type AgentInputItem, type Runner, RunState, setTracingDisabled } from '@openai/agents';
import { ArborClient, ArborProblemError, type MessageInput } from '@arbor/client';
import { type Harness, startHarness } from '../../../test/support/harness';
import { ArborSession, arborContext, fromArbor, StaleSessionError, toArbor } from '../src';
import { mockAgent as agent, mockRunner, startMockResponses } from './support';

setTracingDisabled(true);

/** The session, recording what the runner handed to addItems (to compare with getItems). */
class RecordingSession extends ArborSession {
  added: AgentInputItem[] = [];
  override async addItems(items: AgentInputItem[]) {
    await super.addItems(items);
    this.added.push(...(JSON.parse(JSON.stringify(items)) as AgentInputItem[]));
  }
}

const shape = (m: { role: string; content: readonly { type: string }[] }) =>
  `${m.role}:${m.content.map((b) => b.type).join('+')}`;

describe('@arbor/openai-agents', () => {
  let h: Harness;
  let mock: Awaited<ReturnType<typeof startMockResponses>>;
  let apiKey: string;
  let runner: Runner;
  beforeAll(async () => {
    h = await startHarness();
    mock = await startMockResponses();
    runner = mockRunner(mock.baseURL);
    apiKey = (await h.createTenant('openai-agents')).apiKey;
  });
  afterAll(async () => {
    await mock.close();
    await h.destroy();
  });

  const client = () => new ArborClient({ baseUrl: h.baseUrl, apiKey });
  const session = (sessionId: string) =>
    new RecordingSession({ client: client(), sessionId, model: 'gpt-5-mini' });
  const stored = async (id: string) => {
    const out: MessageInput[] = [];
    for await (const m of client().messages(id)) out.push(m);
    return out;
  };
  /** Every message ever stored in the conversation (the tree, not just the active branch). */
  const appended = async (id: string) => {
    const out: unknown[] = [];
    for await (const e of client().events(id)) if (e.type === 'MessageAppended') out.push(e);
    return out;
  };
  const draftOf = async (id: string) => {
    try {
      return await client().call('getDraft', { path: { id } });
    } catch (e) {
      if (e instanceof ArborProblemError && e.code === 'draft_not_found') return null;
      throw e;
    }
  };

  it('stores streamed runs with parallel calls and reasoning, and survives a restart', async () => {
    const s1 = session('chat-1');
    const streamed = await runner.run(agent(), 'Weather in Paris and Oslo?', {
      session: s1,
      stream: true,
    });
    let deltas = '';
    for await (const e of streamed.toTextStream()) deltas += e;
    await streamed.completed;
    expect(deltas).toBe('Forecast: Paris: 15 °C; Oslo: 12 °C');
    expect((await stored('chat-1')).map(shape)).toEqual([
      'user:text',
      'assistant:reasoning+tool_use+tool_use',
      'user:tool_result+tool_result',
      'assistant:text',
    ]);
    expect(await draftOf('chat-1')).toBeNull();

    await h.restart(); // a new process on the same data directory, a new Session object
    const s2 = session('chat-1');
    expect(await s2.getItems()).toEqual(s1.added);
    expect(await s2.getItems(2)).toEqual(s1.added.slice(-2));

    const second = await runner.run(agent(), 'Weather in Rome?', { session: s2 });
    expect(second.finalOutput).toBe('Forecast: Rome: 12 °C');
    // The model saw the first run, read back from Arbor: reasoning with its encrypted content.
    const sent = mock.requests[mock.requests.length - 2].input;
    expect(sent.map((i) => i.type ?? i.role)).toEqual([
      'user',
      'reasoning',
      'function_call',
      'function_call',
      'function_call_output',
      'function_call_output',
      'message',
      'user',
    ]);
    expect(sent[1]).toMatchObject({ id: 'rs_1', encrypted_content: 'enc_1_ParisOslo' });
    expect(await s2.getItems()).toEqual([...s1.added, ...s2.added]);
  });

  it('keeps a run paused for approval as a draft across a restart, and commits it on resume', async () => {
    const s1 = session('approve-1');
    const a = agent();
    const paused = await runner.run(a, 'Please delete notes', { session: s1 });
    expect(paused.interruptions).toHaveLength(1);
    const saved = paused.state.toString(); // the app keeps the run state; Arbor keeps the turn
    const draft = await draftOf('approve-1');
    expect(draft?.messages.map(shape)).toEqual(['user:text', 'assistant:tool_use']);
    expect(await stored('approve-1')).toEqual([]);

    await h.restart();
    const s2 = session('approve-1');
    expect(await s2.getItems()).toEqual(s1.added);
    const state = await RunState.fromString(a, saved);
    state.approve(state.getInterruptions()[0]);
    const resumed = await runner.run(a, state, { session: s2 });
    expect(resumed.finalOutput).toBe('Forecast: deleted notes');
    expect((await stored('approve-1')).map(shape)).toEqual([
      'user:text',
      'assistant:tool_use',
      'user:tool_result',
      'assistant:text',
    ]);
    expect(await draftOf('approve-1')).toBeNull();
    expect(await s2.getItems()).toEqual([...s1.added, ...s2.added]);
  });

  it('a new input after an abandoned approval commits the pause with a refusal; later runs work', async () => {
    const s = session('abandon-1');
    const paused = await runner.run(agent(), 'Please delete notes', { session: s });
    expect(paused.interruptions).toHaveLength(1); // never approved nor rejected
    const next = await runner.run(agent(), 'Weather in Paris?', { session: s });
    expect(next.finalOutput).toBe('Forecast: Paris: 15 °C');
    const again = await runner.run(agent(), 'Weather in Oslo?', { session: session('abandon-1') });
    expect(again.finalOutput).toBe('Forecast: Oslo: 12 °C');
    const messages = await stored('abandon-1');
    // The pause is one turn with the call refused (a recorded result), the new input in the
    // same user message, then the two questions' turns.
    expect(messages.map(shape).slice(0, 3)).toEqual([
      'user:text',
      'assistant:tool_use',
      'user:tool_result+text',
    ]);
    const refusal = messages[2].content[0];
    expect(refusal.type === 'tool_result' && refusal.is_error).toBe(true);
    expect(JSON.stringify(refusal)).toContain('not approved');
    expect(await draftOf('abandon-1')).toBeNull();
  });

  it('a run whose session another run wrote meanwhile fails with stale_tip; its turn is a branch', async () => {
    await runner.run(agent(), 'Weather in Rome?', { session: session('race-1') });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    /** Holds this run's first write until the other run has finished. */
    class Held extends RecordingSession {
      override async addItems(items: AgentInputItem[]) {
        await gate;
        await super.addItems(items);
      }
    }
    const slow = runner.run(agent(), 'Weather in Paris?', {
      session: new Held({ client: client(), sessionId: 'race-1', model: 'gpt-5-mini' }),
    });
    const other = await runner.run(agent(), 'Weather in Oslo?', { session: session('race-1') });
    expect(other.finalOutput).toBe('Forecast: Oslo: 12 °C');
    release();
    const failed = await slow.then(
      () => null,
      (e: unknown) => e,
    );
    const stale =
      failed instanceof StaleSessionError ? failed : (failed as { cause?: unknown })?.cause;
    expect(stale).toBeInstanceOf(StaleSessionError);
    if (!(stale instanceof StaleSessionError)) return;
    // The active branch is Rome, then Oslo: nothing stacked on a history the slow run never saw.
    const texts = (await stored('race-1')).map((m) => JSON.stringify(m.content));
    expect(texts.filter((t) => t.includes('Paris'))).toEqual([]);
    expect(texts.filter((t) => t.includes('Oslo')).length).toBeGreaterThan(0);
    // What the slow run did is kept: its whole turns as a branch from where it started, the
    // rest in the error.
    const kept = stale.branch !== null ? await client().getMessage('race-1', stale.branch) : null;
    const keptItems = JSON.stringify([kept, stale.items]);
    expect(keptItems).toContain('Paris');
    expect(stale.tip).toBe((await client().getConversation('race-1')).tip);
  });

  it('with the context filter, the run that lost a race fails with stale_tip and keeps its turn', async () => {
    await runner.run(agent(), 'Weather in Rome?', { session: session('race-ctx') });
    const startedFrom = (await client().getConversation('race-ctx')).tip;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let otherDone = false;
    const slowSession = session('race-ctx');
    const filter = arborContext(slowSession, { budgetTokens: 8000, maxTokens: 512 });
    let calls = 0;
    // The slow run's second model call (after its tool ran) waits until the other run is done.
    const slow = runner.run(agent(), 'Weather in Paris?', {
      session: slowSession,
      callModelInputFilter: async (args) => {
        if (++calls === 2) await gate;
        return filter(args);
      },
    });
    const other = await runner.run(agent(), 'Weather in Oslo?', { session: session('race-ctx') });
    otherDone = true;
    expect(other.finalOutput).toBe('Forecast: Oslo: 12 °C');
    release();
    const failed = await slow.then(
      () => null,
      (e: unknown) => e,
    );
    expect(otherDone).toBe(true);
    const stale =
      failed instanceof StaleSessionError ? failed : (failed as { cause?: unknown })?.cause;
    expect(stale).toBeInstanceOf(StaleSessionError);
    if (!(stale instanceof StaleSessionError)) return;
    expect(stale.startedFrom).toBe(startedFrom);
    expect(stale.tip).toBe((await client().getConversation('race-ctx')).tip);
    // The active branch is Rome, then Oslo; the slow run's whole turn (its tool result and
    // answer included) is a branch from the tip it started from.
    const texts = (await stored('race-ctx')).map((m) => JSON.stringify(m.content));
    expect(texts.filter((t) => t.includes('Paris'))).toEqual([]);
    expect(stale.branch).not.toBeNull();
    const kept: string[] = [];
    for (let id = stale.branch; id !== null && id !== startedFrom;) {
      const m = await client().getMessage('race-ctx', id);
      kept.unshift(`${m.role}:${m.content.map((b) => b.type).join('+')}`);
      id = m.parentId ?? null;
    }
    expect(kept).toEqual([
      'user:text',
      'assistant:reasoning+tool_use',
      'user:tool_result',
      'assistant:text',
    ]);
    const answer = await client().getMessage('race-ctx', stale.branch!);
    expect(JSON.stringify(answer.content)).toContain('Forecast: Paris: 15 °C');
    expect(stale.items).toEqual([]);
  });

  it('commits a run that stops on a tool result as a turn; the next input joins it on a new branch', async () => {
    const s = session('stop-1');
    const a = agent({ toolUseBehavior: 'stop_on_first_tool' });
    const first = await runner.run(a, 'Weather in Lima?', { session: s });
    expect(first.finalOutput).toBe('Lima: 12 °C');
    const ended = await stored('stop-1');
    expect(ended.map(shape)).toEqual([
      'user:text',
      'assistant:reasoning+tool_use',
      'user:tool_result',
    ]);
    expect(await draftOf('stop-1')).toBeNull();
    expect(await session('stop-1').getItems()).toEqual(s.added);

    const second = await runner.run(agent(), 'Thanks', { session: s });
    expect(second.finalOutput).toBe('You said: Thanks');
    expect((await stored('stop-1')).map(shape)).toEqual([
      'user:text',
      'assistant:reasoning+tool_use',
      'user:tool_result+text',
      'assistant:text',
    ]);
    expect(await draftOf('stop-1')).toBeNull();
    expect(await session('stop-1').getItems()).toEqual(s.added);
    // The turn that ended on the tool result is still in the tree.
    const old = ended[ended.length - 1].id!;
    expect((await client().getMessage('stop-1', old)).id).toBe(old);
  });

  it('pops into the middle of a parallel batch by moving the tip; nothing is destroyed', async () => {
    const s = session('pop-1');
    await runner.run(agent(), 'Hello', { session: s });
    await runner.run(agent(), 'Weather in Paris and Oslo?', { session: s });
    const before = await stored('pop-1');
    expect(before.map(shape)).toEqual([
      'user:text',
      'assistant:text',
      'user:text',
      'assistant:reasoning+tool_use+tool_use',
      'user:tool_result+tool_result',
      'assistant:text',
    ]);
    const all = s.added;

    expect(await s.popItem()).toEqual(all[all.length - 1]); // the answer
    expect(await s.popItem()).toEqual(all[all.length - 2]); // Oslo's result: half the batch
    // A new process: the popped state is durable. The tip is back on the first turn, the
    // second turn minus two items is the draft (Paris's result kept with it).
    const again = session('pop-1');
    expect(await again.getItems()).toEqual(all.slice(0, -2));
    expect((await stored('pop-1')).map(shape)).toEqual(['user:text', 'assistant:text']);
    expect((await draftOf('pop-1'))?.messages.map(shape)).toEqual([
      'user:text',
      'assistant:reasoning+tool_use+tool_use',
    ]);
    // The old turn is still in the tree.
    const old = before[before.length - 1].id!;
    expect((await client().getMessage('pop-1', old)).id).toBe(old);

    // Answer the batch again and finish: a new turn on a new branch.
    const redo = all.slice(-2).map((i) => JSON.parse(JSON.stringify(i)) as AgentInputItem);
    (redo[0] as { output: unknown }).output = { type: 'text', text: 'Oslo: 99 °C' };
    await again.addItems(redo);
    expect(await again.getItems()).toEqual([...all.slice(0, -2), ...redo]);
    expect((await stored('pop-1')).map(shape)).toEqual(before.map(shape));
    expect(await draftOf('pop-1')).toBeNull();
    expect((await client().getMessage('pop-1', old)).id).toBe(old);

    // Popping every item empties the session: the first turn's pop moves the tip to none.
    for (let i = (await again.getItems()).length; i > 0; i--) await again.popItem();
    expect(await again.getItems()).toEqual([]);
    expect(await again.popItem()).toBeUndefined();
    expect(await stored('pop-1')).toEqual([]);
    expect((await client().getConversation('pop-1')).tip).toBeNull();
    expect((await appended('pop-1')).length).toBeGreaterThan(0); // kept in the tree, not deleted
  });

  it('clears a session without deleting anything, durably', async () => {
    const s = session('clear-1');
    await runner.run(agent(), 'Hello', { session: s });
    await s.clearSession();
    expect(await s.getItems()).toEqual([]);
    expect(await session('clear-1').getItems()).toEqual([]);
    await runner.run(agent(), 'Again', { session: session('clear-1') });
    expect(await session('clear-1').getItems()).toEqual([
      { type: 'message', role: 'user', content: 'Again' },
      expect.objectContaining({ role: 'assistant' }),
    ]);
    // The same conversation: the cleared turn stays in the tree, the new one is a new root.
    expect((await stored('clear-1')).map(shape)).toEqual(['user:text', 'assistant:text']);
    expect((await stored('clear-1')).map((m) => m.content[0])).toEqual([
      expect.objectContaining({ text: 'Again' }),
      expect.objectContaining({ text: 'You said: Again' }),
    ]);
    expect(await appended('clear-1')).toHaveLength(4);
  });

  it('a model error stores no broken turn; the next run commits a valid one', async () => {
    const s = session('error-1');
    await runner.run(agent(), 'Hello', { session: s });
    await expect(runner.run(agent(), 'Now fail please', { session: s })).rejects.toThrow(
      /refused on purpose/,
    );
    expect((await stored('error-1')).map(shape)).toEqual(['user:text', 'assistant:text']);
    const streamed = await runner.run(agent(), 'fail streaming too', { session: s, stream: true });
    await expect(streamed.completed).rejects.toThrow(/refused on purpose/);
    expect((await stored('error-1')).map(shape)).toEqual(['user:text', 'assistant:text']);
    const broken = await runner.run(agent(), 'Weather midstream', { session: s, stream: true });
    await expect(broken.completed).rejects.toThrow(/failed/i);
    expect((await stored('error-1')).map(shape)).toEqual(['user:text', 'assistant:text']);
    const ok = await runner.run(agent(), 'Hello again', { session: s });
    expect(ok.finalOutput).toBe('You said: Hello again');
    const last = (await stored('error-1')).slice(-2);
    expect(last.map(shape)).toEqual([expect.stringMatching(/^user:text/), 'assistant:text']);
    expect(await session('error-1').getItems()).toEqual(await s.getItems());
  });

  it('round-trips every item kind byte for byte through Arbor', async () => {
    const items = [
      { role: 'user', content: 'plain' },
      {
        type: 'message',
        role: 'user',
        id: 'u1',
        content: [
          { type: 'input_text', text: 'look', providerData: { x: 1 } },
          { type: 'input_image', image: 'https://example.com/a.png', detail: 'high' },
          { type: 'input_image', image: { id: 'file-1' } },
          {
            type: 'input_image',
            image:
              'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
          },
        ],
      },
      {
        type: 'reasoning',
        id: 'rs_9',
        content: [{ type: 'input_text', text: 'thinking', providerData: { k: 'v' } }],
        providerData: { encrypted_content: 'enc_9', other: [1, 2] },
      },
      { type: 'reasoning', content: [] },
      {
        type: 'function_call',
        id: 'fc_1',
        callId: 'c1',
        name: 'f',
        arguments: '{ "a": 1 }',
        status: 'completed',
        providerData: { p: true },
      },
      { type: 'function_call', callId: 'c2', name: 'g', arguments: '[1]' },
      {
        type: 'hosted_tool_call',
        id: 'ws_1',
        name: 'web_search_call',
        status: 'completed',
        providerData: { action: { query: 'q' } },
      },
      { type: 'function_call_result', callId: 'c1', name: 'f', status: 'completed', output: 'ok' },
      {
        type: 'function_call_result',
        callId: 'c2',
        name: 'g',
        status: 'incomplete',
        output: [{ type: 'input_text', text: 'partial' }],
      },
      {
        type: 'message',
        role: 'assistant',
        id: 'msg_1',
        status: 'completed',
        content: [
          { type: 'output_text', text: 'done', annotations: [], providerData: { logprobs: [] } },
          { type: 'refusal', refusal: 'not that' },
        ],
        providerData: { phase: 'final' },
      },
    ] as unknown as AgentInputItem[];
    expect(fromArbor(toArbor(items))).toEqual(items);
    const s = session('kinds-1');
    await s.addItems(items);
    expect((await stored('kinds-1')).map(shape)).toEqual([
      'user:text+text+image+image+image',
      'assistant:reasoning+reasoning+tool_use+tool_use+provider',
      'user:tool_result+tool_result',
      'assistant:text+text',
    ]);
    expect(await session('kinds-1').getItems()).toEqual(items);
  });

  it('sends the model the context Arbor fitted (openai-responses), the open turn appended', async () => {
    const s = session('ctx-1');
    const long = 'word '.repeat(1500);
    for (const q of ['One', 'Two', 'Three'])
      await runner.run(agent(), `${q} ${long}`, { session: s });
    const contexts: { contextId: string; estimatedTokens: number }[] = [];
    const filter = arborContext(s, {
      budgetTokens: 4000,
      maxTokens: 512,
      onContext: (c) => contexts.push(c),
    });
    const from = mock.requests.length;
    const result = await runner.run(agent(), 'Weather in Bern?', {
      session: s,
      callModelInputFilter: filter,
    });
    expect(result.finalOutput).toBe('Forecast: Bern: 12 °C');
    expect(contexts).toHaveLength(2); // one per model call
    expect(contexts.every((c) => c.estimatedTokens <= 4000 - 512)).toBe(true);
    const [call1, call2] = mock.requests.slice(from).map((r) => r.input);
    // The stored history holds 9,000 words (over the budget): the model got what the ladder
    // left of it, then the new question.
    const words = (v: unknown) => JSON.stringify(v).split('word').length - 1;
    expect(words(await s.getItems())).toBe(9000);
    expect(words(call1)).toBeGreaterThan(0);
    expect(words(call1)).toBeLessThan(4000);
    expect(call1[call1.length - 1]).toMatchObject({ role: 'user' });
    expect(JSON.stringify(call1[call1.length - 1])).toContain('Weather in Bern?');
    // The second call carried the open turn (reasoning, call, output) after the fitted history.
    expect(call2.slice(-3).map((i) => i.type)).toEqual([
      'reasoning',
      'function_call',
      'function_call_output',
    ]);
    const receipt = await client().call('reproduceContext', {
      path: { id: 'ctx-1', contextId: contexts[0].contextId },
    });
    expect(receipt).toBeTruthy();
    expect((await stored('ctx-1')).length).toBe(10);
  });

  it('applies history transactions once per operationId, as turns with derived turnIds', async () => {
    const s = session('tx-1');
    const user = (text: string) =>
      ({ type: 'message', role: 'user', content: text }) as AgentInputItem;
    const answer = (text: string) =>
      ({
        type: 'message',
        role: 'assistant',
        id: `msg_${text}`,
        status: 'completed',
        content: [{ type: 'output_text', text }],
      }) as AgentInputItem;
    const call = {
      type: 'function_call',
      callId: 'call_tx',
      name: 'delete_file',
      arguments: '{"path":"a"}',
      status: 'completed',
    } as AgentInputItem;
    const events = async () => {
      let n = 0;
      for await (const _ of client().events('tx-1')) n++;
      return n;
    };
    const first = { type: 'append_items' as const, items: [user('hi'), answer('hello')] };
    await s.applyHistoryTransaction({ operationId: 'run1:1:append', transaction: first });
    const after = await events();
    await s.applyHistoryTransaction({ operationId: 'run1:1:append', transaction: first });
    await session('tx-1').applyHistoryTransaction({
      operationId: 'run1:1:append',
      transaction: first,
    });
    expect(await events()).toBe(after); // nothing appended by the repeats
    await expect(
      s.applyHistoryTransaction({
        operationId: 'run1:1:append',
        transaction: { type: 'append_items', items: [user('other'), answer('x')] },
      }),
    ).rejects.toThrow(/different transaction/);
    const turn = await stored('tx-1');
    expect(turn.map(shape)).toEqual(['user:text', 'assistant:text']);
    expect((turn[0] as { turnId?: string }).turnId).toMatch(/^op-[0-9a-f]{48}$/);

    // An open turn: kept as the draft, and a repeat does not add its items twice.
    const open = { type: 'append_items' as const, items: [user('delete a'), call] };
    await s.applyHistoryTransaction({ operationId: 'run2:1:append', transaction: open });
    await s.applyHistoryTransaction({ operationId: 'run2:1:append', transaction: open });
    expect(await s.getItems()).toEqual([user('hi'), answer('hello'), user('delete a'), call]);

    // replace_suffix inside the draft, then across a committed turn (a new branch).
    await s.applyHistoryTransaction({
      operationId: 'run2:1:replace',
      transaction: {
        type: 'replace_suffix',
        expectedSuffix: [user('delete a'), call],
        replacement: [user('delete a'), answer('blocked')],
      },
    });
    expect(await s.getItems()).toEqual([
      user('hi'),
      answer('hello'),
      user('delete a'),
      answer('blocked'),
    ]);
    expect(await draftOf('tx-1')).toBeNull();
    const before = await stored('tx-1');
    await expect(
      s.applyHistoryTransaction({
        operationId: 'run3:1:replace',
        transaction: { type: 'replace_suffix', expectedSuffix: [answer('nope')], replacement: [] },
      }),
    ).rejects.toThrow(/expected suffix/);
    expect(await stored('tx-1')).toEqual(before);
    const replace = {
      type: 'replace_suffix' as const,
      expectedSuffix: [answer('hello'), user('delete a'), answer('blocked')],
      replacement: [answer('hello again')],
    };
    await s.applyHistoryTransaction({ operationId: 'run3:1:replace', transaction: replace });
    await s.applyHistoryTransaction({ operationId: 'run3:1:replace', transaction: replace });
    expect(await session('tx-1').getItems()).toEqual([user('hi'), answer('hello again')]);
    // The replaced turns are still in the tree.
    for (const m of before) expect((await client().getMessage('tx-1', m.id!)).id).toBe(m.id);
  });
});
