/**
 * What this package's tests, `examples/langgraph.ts` and `bench/langgraph.bench.ts` share: the
 * mock model server (OpenAI Chat Completions) and a hand-built agent graph over it — a model
 * node, an approval node that interrupts before `delete_file` runs, and a tool node.
 * Test support only: outside `src/`, so neither built into `dist/` nor packed.
 */
import { tool } from '@langchain/core/tools';
import { type AIMessage, ToolMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import {
  type BaseCheckpointSaver,
  END,
  interrupt,
  MessagesAnnotation,
  START,
  StateGraph,
} from '@langchain/langgraph';
import { z } from 'zod';

export { type MockChat, startMockChat } from './mock-chat';

/** Builds the agent graph on `checkpointer`; `ran` counts each tool execution. */
export const agentGraph = (baseURL: string, checkpointer: BaseCheckpointSaver) => {
  const ran: string[] = [];
  const getWeather = tool(
    async ({ city }: { city: string }) => {
      ran.push(`get_weather ${city}`);
      return `${city}: ${city.length * 3} °C`;
    },
    {
      name: 'get_weather',
      description: 'Weather for a city',
      schema: z.object({ city: z.string() }),
    },
  );
  const deleteFile = tool(
    async ({ path }: { path: string }) => {
      ran.push(`delete_file ${path}`);
      return `deleted ${path}`;
    },
    { name: 'delete_file', description: 'Delete a file', schema: z.object({ path: z.string() }) },
  );
  const tools = [getWeather, deleteFile];
  const model = new ChatOpenAI({
    model: 'gpt-4o-mini',
    apiKey: 'mock',
    configuration: { baseURL },
    maxRetries: 0,
  }).bindTools(tools);

  const graph = new StateGraph(MessagesAnnotation)
    .addNode('agent', async (state) => ({ messages: [await model.invoke(state.messages)] }))
    // A human approves every delete: the run stops here (interrupt) until resumed with `yes`.
    .addNode('approve', (state) => {
      const last = state.messages[state.messages.length - 1] as AIMessage;
      const deletes = (last.tool_calls ?? []).filter((c) => c.name === 'delete_file');
      if (deletes.length > 0 && interrupt({ approve: deletes.map((c) => c.args) }) !== 'yes')
        throw new Error('not approved');
      return {};
    })
    .addNode('tools', async (state) => {
      const last = state.messages[state.messages.length - 1] as AIMessage;
      const messages = await Promise.all(
        (last.tool_calls ?? []).map(async (call) => {
          const t = tools.find((x) => x.name === call.name);
          if (!t) throw new Error(`no tool ${call.name}`);
          const out: unknown = await (t as { invoke(args: unknown): Promise<unknown> }).invoke(
            call.args,
          );
          return new ToolMessage({
            content: String(out),
            tool_call_id: call.id ?? '',
            name: call.name,
          });
        }),
      );
      return { messages };
    })
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (state) => {
      const last = state.messages[state.messages.length - 1] as AIMessage;
      return (last.tool_calls?.length ?? 0) > 0 ? 'approve' : END;
    })
    .addEdge('approve', 'tools')
    .addEdge('tools', 'agent')
    .compile({ checkpointer });
  return { graph, ran };
};
