/**
 * `npm run example:ai-sdk`: two `generateText` tool loops (the real `ai` package with
 * `@ai-sdk/openai`) against a local mock model speaking OpenAI's chat-completions format, with
 * Arbor as the history: each loop's next call is built from `POST …/context`, each finished loop
 * is committed as one turn. Prints the conversation Arbor stored.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, type ModelMessage, stepCountIs, tool } from 'ai';
import { ArborClient } from '@arbor/client';
import { ArborHistory } from '@arbor/ai-sdk';
import { startMockOpenAiChat } from '../packages/ai-sdk/test/mock-openai-chat';
import { startArbor } from './embedded';

const main = async () => {
  const arbor = await startArbor();
  const model = await startMockOpenAiChat();
  const client = new ArborClient({ baseUrl: arbor.baseUrl, apiKey: arbor.apiKey });
  const history = new ArborHistory(client, `ai-sdk-example-${Date.now()}`);
  await history.ensure('AI SDK example');
  const openai = createOpenAI({ baseURL: model.baseURL, apiKey: 'mock' });
  const get_weather = tool({
    description: 'Weather for a city',
    inputSchema: jsonSchema<{ city: string }>({
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    }),
    execute: async ({ city }) => `${city}: ${city.length * 3} °C`,
  });
  for (const question of ['Weather in Paris and Oslo?', 'What about Rome?']) {
    const next = await history.next({
      model: 'gpt-4o-mini',
      budgetTokens: 50_000,
      maxTokens: 1024,
    });
    const input: ModelMessage[] = [{ role: 'user', content: question }];
    const result = await generateText({
      model: openai.chat('gpt-4o-mini'),
      messages: [...next.messages, ...input],
      tools: { get_weather },
      stopWhen: stepCountIs(5),
    });
    await history.commit(input, result, next.tip);
    console.log(`> ${question}\n< ${result.text}  (${result.steps.length} steps)`);
  }
  console.log(`\nStored in Arbor (${history.conversationId}):`);
  for await (const m of client.messages(history.conversationId)) {
    const blocks = m.content.map((b) =>
      b.type === 'text'
        ? JSON.stringify(b.text)
        : b.type === 'tool_use'
          ? `tool_use ${b.name}(${JSON.stringify(b.input)})`
          : b.type === 'tool_result'
            ? `tool_result ${JSON.stringify(b.content)}`
            : b.type,
    );
    const usage = m.usage ? `  [in ${m.usage.input_tokens}, out ${m.usage.output_tokens}]` : '';
    console.log(`  ${m.role.padEnd(9)} ${blocks.join(' | ')}${usage}`);
  }
  await model.close();
  await arbor.stop();
};

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
