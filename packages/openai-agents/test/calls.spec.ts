/**
 * What a run costs on the wire: the HTTP requests Arbor sees (through a counting proxy) for one
 * turn of the real `@openai/agents` Runner with one tool call, against the mock Responses model.
 */
import { setTracingDisabled } from '@openai/agents';
import { ArborClient } from '@arbor/client';
import { type CountingProxy, startCountingProxy } from '../../../test/support/counting-proxy';
import { type Harness, startHarness } from '../../../test/support/harness';
import { ArborSession } from '../src';
import { mockAgent as agent, mockRunner, startMockResponses } from './support';

setTracingDisabled(true);

describe('@arbor/openai-agents HTTP calls', () => {
  let h: Harness;
  let proxy: CountingProxy;
  let mock: Awaited<ReturnType<typeof startMockResponses>>;
  let apiKey: string;
  beforeAll(async () => {
    h = await startHarness();
    proxy = await startCountingProxy(() => h.baseUrl);
    mock = await startMockResponses();
    apiKey = (await h.createTenant('agents-calls')).apiKey;
  });
  afterAll(async () => {
    await proxy.close();
    await mock.close();
    await h.destroy();
  });

  const session = (sessionId: string) =>
    new ArborSession({
      client: new ArborClient({ baseUrl: proxy.baseUrl, apiKey }),
      sessionId,
      model: 'gpt-5-mini',
    });

  it.each([
    ['a new session', 'calls-new', false, false],
    ['a session with history', 'calls-old', true, false],
    ['a session with history, streamed', 'calls-stream', true, true],
  ])('a one-tool turn on %s takes at most 4 requests', async (_, id, warm, stream) => {
    const runner = mockRunner(mock.baseURL);
    if (warm) await runner.run(agent(), 'Hello', { session: session(id) });
    const from = proxy.requests.length;
    const s = session(id);
    const question = 'Weather in Paris?';
    let output: unknown;
    if (stream) {
      const streamed = await runner.run(agent(), question, { session: s, stream: true });
      for await (const _ of streamed.toTextStream()) void _;
      await streamed.completed;
      output = streamed.finalOutput;
    } else output = (await runner.run(agent(), question, { session: s })).finalOutput;
    expect(output).toBe('Forecast: Paris: 15 °C');
    const seen = proxy.requests.slice(from);
    expect(seen).toEqual(seen.slice(0, 4)); // at most four, listed when more
    // The whole turn is stored, and no draft is left.
    const stored = await session(id).getItems();
    expect(JSON.stringify(stored)).toContain('Paris: 15 °C');
  });
});
