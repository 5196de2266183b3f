/**
 * `npm run example:ai-sdk`: two `generateText` tool loops (the real `ai` package with
 * `@ai-sdk/openai`) against a local mock model speaking OpenAI's chat-completions format, with
 * Arbor as the history: each loop's next call is built from `POST …/context`, each finished loop
 * is committed as one turn. Prints the conversation Arbor stored.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, type ModelMessage, stepCountIs } from 'ai';
import { ArborClient } from '@arbor/client';
import { ArborHistory } from '@arbor/ai-sdk';
// The mock model and its tool, shared with the package's tests (test support, not API).
import { startMockOpenAiChat, weatherTool } from '../packages/ai-sdk/test/support';
import { startArbor } from './embedded';
import { printStored } from './print';

const main = async () => {
  const arbor = await startArbor();
  const model = await startMockOpenAiChat();
  const client = new ArborClient({ baseUrl: arbor.baseUrl, apiKey: arbor.apiKey });
  const history = new ArborHistory(client, `ai-sdk-example-${Date.now()}`);
  await history.ensure('AI SDK example');
  const openai = createOpenAI({ baseURL: model.baseURL, apiKey: 'mock' });
  for (const question of ['Weather in Paris and Oslo?', 'What about Rome?']) {
    const next = await history.next({
      model: 'gpt-4o-mini',
      budgetTokens: 50_000,
      maxTokens: 1024,
      system: 'Be brief.',
    });
    const input: ModelMessage[] = [{ role: 'user', content: question }];
    const result = await generateText({
      model: openai.chat('gpt-4o-mini'),
      system: next.system,
      messages: [...next.messages, ...input],
      tools: { get_weather: weatherTool },
      stopWhen: stepCountIs(5),
    });
    await history.commit(input, result, next.tip);
    console.log(`> ${question}\n< ${result.text}  (${result.steps.length} steps)`);
  }
  await printStored(client, history.conversationId);
  await model.close();
  await arbor.stop();
};

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
