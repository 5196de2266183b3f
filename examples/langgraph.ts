/**
 * `npm run example:langgraph`: a LangGraph agent (ChatOpenAI against a local mock model speaking
 * the Chat Completions API, an approval interrupt, a tool node) checkpointed in Arbor by
 * `ArborSaver`: paused for approval, resumed by a new saver and graph (as after a restart),
 * then forked from an old checkpoint with `updateState`. Prints the conversation Arbor stored
 * and its branch points.
 */
import { HumanMessage } from '@langchain/core/messages';
import { Command, START } from '@langchain/langgraph';
import { ArborClient } from '@arbor/client';
import { ArborSaver } from '@arbor/langgraph';
// The mock model and the graph, shared with the package's tests (test support, not API).
import { agentGraph, startMockChat } from '../packages/langgraph/test/support';
import { startArbor } from './embedded';
import { printStored } from './print';

const main = async () => {
  const arbor = await startArbor();
  const mock = await startMockChat();
  const client = new ArborClient({ baseUrl: arbor.baseUrl, apiKey: arbor.apiKey });
  const config = { configurable: { thread_id: `langgraph-example-${Date.now()}` } };
  const fresh = () => agentGraph(mock.baseURL, new ArborSaver({ client })).graph;

  await fresh().invoke({ messages: [new HumanMessage('Please delete notes.txt')] }, config);
  const paused = await fresh().getState(config);
  console.log(`> Please delete notes.txt\n  (paused before: ${paused.next.join(', ')})`);
  const done = await fresh().invoke(new Command({ resume: 'yes' }), config);
  console.log(`< ${String(done.messages.at(-1)?.content)}  (approved, resumed by a new saver)`);
  await fresh().invoke({ messages: [new HumanMessage('Weather in Paris and Rome?')] }, config);

  const graph = fresh();
  let old: typeof config | undefined;
  for await (const s of graph.getStateHistory(config))
    if (s.values.messages?.length === 4 && s.next.length === 0) old = s.config as typeof config;
  if (!old) throw new Error('no checkpoint after the first answer');
  const fork = await graph.updateState(
    old,
    { messages: [new HumanMessage('Weather in Oslo?')] },
    START,
  );
  const forked = await graph.invoke(null, fork);
  console.log(`> Weather in Oslo?  (forked from the checkpoint after the first answer)`);
  console.log(`< ${String(forked.messages.at(-1)?.content)}`);

  const ids = await new ArborSaver({ client }).conversationsOf(config.configurable.thread_id);
  if (!ids) throw new Error('no conversations');
  await printStored(client, ids.messages);
  const tree = await client.tree(ids.messages);
  console.log(
    `  (${tree.nodes.length} messages in the tree, ${tree.branchPoints.length} branch point)`,
  );
  let checkpoints = 0;
  for await (const _ of new ArborSaver({ client }).list(config)) checkpoints++;
  console.log(`Checkpoints: ${checkpoints} (records in ${ids.checkpoints})`);
  await mock.close();
  await arbor.stop();
};

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
