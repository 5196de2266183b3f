/**
 * `npm run example:openai-agents`: the real `@openai/agents` Runner against a local mock model
 * speaking the OpenAI Responses API, with an Arbor `Session`: a streamed run with parallel tool
 * calls and a reasoning item, a run paused for approval (kept as Arbor's draft), resumed from
 * its serialized state with a new Session object, and a last run whose model input is Arbor's
 * fitted context. Prints the conversation Arbor stored.
 */
import { Agent, OpenAIProvider, Runner, RunState, setTracingDisabled, tool } from '@openai/agents';
import { ArborClient, ArborProblemError } from '@arbor/client';
import { ArborSession, arborContext } from '@arbor/openai-agents';
import { startMockResponses } from '../packages/openai-agents/test/mock-openai-responses';
import { startArbor } from './embedded';

setTracingDisabled(true);

const main = async () => {
  const arbor = await startArbor();
  const mock = await startMockResponses();
  const client = new ArborClient({ baseUrl: arbor.baseUrl, apiKey: arbor.apiKey });
  const sessionId = `agents-example-${Date.now()}`;
  const newSession = () => new ArborSession({ client, sessionId, model: 'gpt-5-mini' });
  const get_weather = tool({
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
    strict: true,
    execute: async (input) => `${(input as { city: string }).city}: 15 °C`,
  });
  const delete_file = tool({
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
  const agent = new Agent({
    name: 'assistant',
    instructions: 'Be brief.',
    model: 'gpt-5-mini',
    tools: [get_weather, delete_file],
  });
  const runner = new Runner({
    modelProvider: new OpenAIProvider({
      baseURL: mock.baseURL,
      apiKey: 'mock',
      useResponses: true,
    }),
  });

  const session = newSession();
  const streamed = await runner.run(agent, 'Weather in Paris and Oslo?', { session, stream: true });
  process.stdout.write('> Weather in Paris and Oslo?\n< ');
  for await (const delta of streamed.toTextStream()) process.stdout.write(delta);
  await streamed.completed;

  const paused = await runner.run(agent, 'Please delete notes', { session });
  const saved = paused.state.toString();
  const draft = await client.call('getDraft', { path: { id: sessionId } });
  console.log(
    `\n> Please delete notes\n  (paused for approval; Arbor's draft: ${draft.messages.map((m) => m.role).join(' + ')})`,
  );
  const state = await RunState.fromString(agent, saved);
  state.approve(state.getInterruptions()[0]);
  const resumed = await runner.run(agent, state, { session: newSession() });
  console.log(`< ${String(resumed.finalOutput)}  (approved, resumed with a new Session)`);

  const fitted = newSession();
  const last = await runner.run(agent, 'Thanks!', {
    session: fitted,
    callModelInputFilter: arborContext(fitted, {
      budgetTokens: 20_000,
      maxTokens: 1024,
      onContext: (c) => console.log(`  (context ${c.contextId}: ~${c.estimatedTokens} tokens)`),
    }),
  });
  console.log(`> Thanks!\n< ${String(last.finalOutput)}`);

  console.log(`\nStored in Arbor (${sessionId}):`);
  for await (const m of client.messages(sessionId)) {
    const blocks = m.content.map((b) =>
      b.type === 'text'
        ? JSON.stringify(b.text)
        : b.type === 'tool_use'
          ? `tool_use ${b.name}(${JSON.stringify(b.input)})`
          : b.type === 'tool_result'
            ? `tool_result ${b.name ?? ''} ${JSON.stringify(b.content)}`
            : b.type === 'reasoning'
              ? `reasoning ${b.id ?? ''} ${JSON.stringify(b.summary.map((s) => s.text))}`
              : b.type,
    );
    console.log(`  ${m.role.padEnd(9)} ${blocks.join(' | ')}`);
  }
  try {
    await client.call('getDraft', { path: { id: sessionId } });
    console.log('  (a draft is open)');
  } catch (e) {
    if (!(e instanceof ArborProblemError) || e.code !== 'draft_not_found') throw e;
    console.log('  (no open draft: every turn is committed)');
  }
  console.log(`Session items: ${(await newSession().getItems()).length}`);
  await mock.close();
  await arbor.stop();
};

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
