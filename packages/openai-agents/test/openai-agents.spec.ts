/**
 * @arbor/openai-agents with the real `@openai/agents` Runner and its OpenAI Responses model
 * against a local server speaking the Responses wire format (JSON and SSE, tool calls,
 * reasoning items, an error), storing in the real app, which restarts mid-conversation.
 */
import {
  Agent,
  type AgentInputItem,
  OpenAIResponsesModel,
  Runner,
  RunState,
  setTracingDisabled,
  tool,
} from '@openai/agents';
import OpenAI from 'openai';
import { ArborClient, ArborProblemError, type MessageInput } from '@arbor/client';
import { type Harness, startHarness } from '../../../test/support/harness';
import { ArborSession, arborContext, fromArbor, toArbor } from '../src';
import { startMockResponses } from './mock-openai-responses';

setTracingDisabled(true);

/** The session, recording what the runner handed to addItems (to compare with getItems). */
class RecordingSession extends ArborSession {
  added: AgentInputItem[] = [];
  override async addItems(items: AgentInputItem[]) {
    await super.addItems(items);
    this.added.push(...(JSON.parse(JSON.stringify(items)) as AgentInputItem[]));
  }
}

const weather = tool({
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
  strict: true,
  execute: async (input) => {
    const { city } = input as { city: string };
    return `${city}: ${city.length * 3} °C`;
  },
});

const deleteFile = tool({
  name: 'delete_file',
  description: 'Delete a file',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
    additionalProperties: false,
  },
  strict: true,
  needsApproval: true,
  execute: async (input) => `deleted ${(input as { path: string }).path}`,
});

const shape = (m: { role: string; content: readonly { type: string }[] }) =>
  `${m.role}:${m.content.map((b) => b.type).join('+')}`;

describe('@arbor/openai-agents', () => {
  let h: Harness;
  let mock: Awaited<ReturnType<typeof startMockResponses>>;
  let apiKey: string;
  const runner = new Runner();
  beforeAll(async () => {
    h = await startHarness();
    mock = await startMockResponses();
    apiKey = (await h.createTenant('openai-agents')).apiKey;
  });
  afterAll(async () => {
    await mock.close();
    await h.destroy();
  });

  const client = () => new ArborClient({ baseUrl: h.baseUrl, apiKey });
  const session = (sessionId: string) =>
    new RecordingSession({ client: client(), sessionId, model: 'gpt-5-mini' });
  const agent = (extra: Partial<ConstructorParameters<typeof Agent>[0]> = {}) =>
    new Agent({
      name: 'assistant',
      instructions: 'Be brief.',
      model: new OpenAIResponsesModel(
        new OpenAI({ baseURL: mock.baseURL, apiKey: 'test', maxRetries: 0 }),
        'gpt-5-mini',
      ),
      tools: [weather, deleteFile],
      ...extra,
    });
  const stored = async (id: string) => {
    const out: MessageInput[] = [];
    for await (const m of client().messages(id)) out.push(m);
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
});
