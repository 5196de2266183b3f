/**
 * `npm run example:openai-agents`: the real `@openai/agents` Runner against a local mock model
 * speaking the OpenAI Responses API, with an Arbor `Session`: a streamed run with parallel tool
 * calls and a reasoning item, a run paused for approval (kept as Arbor's draft), resumed from
 * its serialized state with a new Session object, and a last run whose model input is Arbor's
 * fitted context. Prints the conversation Arbor stored.
 */
import { RunState, setTracingDisabled } from '@openai/agents';
import { ArborClient, ArborProblemError } from '@arbor/client';
import { ArborSession, arborContext } from '@arbor/openai-agents';
// The mock model, its tools and agent, shared with the package's tests (test support, not API).
import { mockAgent, mockRunner, startMockResponses } from '../packages/openai-agents/test/support';
import { startArbor } from './embedded';
import { printStored } from './print';

setTracingDisabled(true);

const main = async () => {
  const arbor = await startArbor();
  const mock = await startMockResponses();
  const client = new ArborClient({ baseUrl: arbor.baseUrl, apiKey: arbor.apiKey });
  const sessionId = `agents-example-${Date.now()}`;
  const newSession = () => new ArborSession({ client, sessionId, model: 'gpt-5-mini' });
  const agent = mockAgent();
  const runner = mockRunner(mock.baseURL);

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

  await printStored(client, sessionId);
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
