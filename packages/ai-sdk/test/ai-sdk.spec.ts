/**
 * @arbor/ai-sdk with the real `ai` package (`generateText`, a multi-step tool loop with parallel
 * calls) and `@ai-sdk/openai` against a local server speaking OpenAI's chat-completions format,
 * storing in the real app; the app restarts between two loops of one conversation.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, type ModelMessage, stepCountIs, streamText } from 'ai';
import { ArborClient, type MessageInput } from '@arbor/client';
import { type Harness, startHarness } from '../../../test/support/harness';
import { ArborHistory, fromArbor, toArbor } from '../src';
import { startMockOpenAiChat, weatherTool } from './support';

describe('@arbor/ai-sdk', () => {
  let h: Harness;
  let mock: Awaited<ReturnType<typeof startMockOpenAiChat>>;
  let apiKey: string;
  beforeAll(async () => {
    h = await startHarness();
    mock = await startMockOpenAiChat();
    apiKey = (await h.createTenant('ai-sdk')).apiKey;
  });
  afterAll(async () => {
    await mock.close();
    await h.destroy();
  });

  const loop = async (history: ArborHistory, question: string) => {
    const next = await history.next({
      model: 'gpt-4o-mini',
      budgetTokens: 50_000,
      maxTokens: 1024,
      system: 'Be brief.',
    });
    const input: ModelMessage[] = [{ role: 'user', content: question }];
    const openai = createOpenAI({ baseURL: mock.baseURL, apiKey: 'test' });
    const result = await generateText({
      model: openai.chat('gpt-4o-mini'),
      system: next.system,
      messages: [...next.messages, ...input],
      // A system message in `messages` is an error here, not only the SDK's warning.
      allowSystemInMessages: false,
      tools: { get_weather: weatherTool },
      stopWhen: stepCountIs(5),
    });
    const committed = await history.commit(input, result, next.tip);
    return { result, committed, next };
  };

  it('persists each finished loop as a turn and builds the next call from the context', async () => {
    const history = new ArborHistory(new ArborClient({ baseUrl: h.baseUrl, apiKey }), 'chat-1');
    await history.ensure('weather');
    const first = await loop(history, 'Weather in Paris and Oslo?');
    expect(first.result.text).toBe('Forecast: Paris: 15 °C; Oslo: 12 °C');
    expect(first.next.system).toBe('Be brief.');
    expect(first.next.messages).toEqual([]);
    expect(first.committed.messageIds).toHaveLength(4);

    await h.restart(); // a new process on the same data: the history survives
    const again = new ArborHistory(new ArborClient({ baseUrl: h.baseUrl, apiKey }), 'chat-1');
    await again.ensure('ignored: it exists');
    const warn = jest.spyOn(console, 'warn');
    const second = await loop(again, 'Weather in Rome?');
    expect(second.result.text).toBe('Forecast: Rome: 12 °C');
    expect(second.next.system).toBe('Be brief.');
    expect(second.next.messages.filter((m) => m.role === 'system')).toEqual([]);
    expect(warn.mock.calls.filter((c) => String(c[0]).includes('System messages'))).toEqual([]);
    warn.mockRestore();
    // The second loop's first model call carried the first loop, read back from Arbor.
    const sent = mock.requests[mock.requests.length - 2].messages;
    expect(sent.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'user',
    ]);
    expect(sent[2].tool_calls?.map((c) => JSON.parse(c.function.arguments).city)).toEqual([
      'Paris',
      'Oslo',
    ]);

    const client = new ArborClient({ baseUrl: h.baseUrl, apiKey });
    const stored: MessageInput[] = [];
    for await (const m of client.messages('chat-1')) stored.push(m);
    expect(stored.map((m) => `${m.role}:${m.content.map((b) => b.type).join('+')}`)).toEqual([
      'user:text',
      'assistant:tool_use+tool_use',
      'user:tool_result+tool_result',
      'assistant:text',
      'user:text',
      'assistant:tool_use',
      'user:tool_result',
      'assistant:text',
    ]);
    // Per-step usage on each assistant message, from result.steps.
    const assistants = stored.filter((m) => m.role === 'assistant');
    expect(assistants.every((m) => typeof m.usage?.input_tokens === 'number')).toBe(true);
    expect(assistants.map((m) => m.usage?.output_tokens)).toEqual([7, 7, 7, 7]);
    expect(assistants[0].model).toBe('gpt-4o-mini');
  });

  it('commits a streamText result as it is, and a retry with its turnId stores it once', async () => {
    const client = new ArborClient({ baseUrl: h.baseUrl, apiKey });
    const history = new ArborHistory(client, 'stream-1');
    await history.ensure();
    const next = await history.next({
      model: 'gpt-4o-mini',
      budgetTokens: 50_000,
      maxTokens: 1024,
    });
    const input: ModelMessage[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const openai = createOpenAI({ baseURL: mock.baseURL, apiKey: 'test' });
    const result = streamText({
      model: openai.chat('gpt-4o-mini'),
      messages: [...next.messages, ...input],
      tools: { get_weather: weatherTool },
      stopWhen: stepCountIs(5),
    });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe('Forecast: Paris: 15 °C');
    const first = await history.commit(input, result, { expectedTip: next.tip, turnId: 'turn-s1' });
    // The answer was lost, say: the same commit again is answered, not stored twice.
    const again = await history.commit(input, result, { expectedTip: next.tip, turnId: 'turn-s1' });
    expect(again.replayed).toBe(true);
    expect(again.messageIds).toEqual(first.messageIds);
    const stored = await client.getConversation('stream-1');
    expect(stored.counts).toEqual({ messages: 4, turns: 1 });
  });

  it('stores URL images, and the next call sends them to the model by URL', async () => {
    const client = new ArborClient({ baseUrl: h.baseUrl, apiKey });
    const history = new ArborHistory(client, 'image-url-1');
    await history.ensure();
    const url = 'https://example.com/cat.png';
    const input: ModelMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image', image: new URL(url) },
          { type: 'image', image: 'https://example.com/dog.jpg', mediaType: 'image/jpeg' },
        ],
      },
    ];
    const openai = createOpenAI({ baseURL: mock.baseURL, apiKey: 'test' });
    const first = await generateText({ model: openai.chat('gpt-4o-mini'), messages: input });
    await history.commit(input, first, { expectedTip: null, turnId: 'turn-img-1' });
    const stored: MessageInput[] = [];
    for await (const m of client.messages('image-url-1')) stored.push(m);
    expect(stored[0].content).toEqual([
      { type: 'text', text: 'what is this?' },
      { type: 'image', source: { type: 'url', url } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/dog.jpg' } },
    ]);
    const next = await history.next({
      model: 'gpt-4o-mini',
      budgetTokens: 50_000,
      maxTokens: 1024,
    });
    const question: ModelMessage[] = [{ role: 'user', content: 'and this one?' }];
    const second = await generateText({
      model: openai.chat('gpt-4o-mini'),
      messages: [...next.messages, ...question],
    });
    expect(second.text).toBe('You said: and this one?');
    const sent = JSON.stringify(mock.requests[mock.requests.length - 1].messages[0]);
    expect(sent).toContain(url);
    expect(sent).toContain('https://example.com/dog.jpg');
  });

  it('maps ModelMessages to Arbor and back without loss for text, tool calls and results', () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'checking' },
          { type: 'tool-call', toolCallId: 'a', toolName: 'f', input: { x: 1 } },
          { type: 'tool-call', toolCallId: 'b', toolName: 'g', input: { y: [2] } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'a',
            toolName: 'f',
            output: { type: 'text', value: 'one' },
          },
          {
            type: 'tool-result',
            toolCallId: 'b',
            toolName: 'g',
            output: { type: 'error-text', value: 'no' },
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
    ];
    const arbor = toArbor(messages);
    expect(arbor[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'a', content: 'one' },
        { type: 'tool_result', tool_use_id: 'b', content: 'no', is_error: true },
      ],
    });
    expect(fromArbor({ messages: arbor })).toEqual(messages);
  });
});
