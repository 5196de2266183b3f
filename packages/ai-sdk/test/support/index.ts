/**
 * What this package's tests and `examples/ai-sdk.ts` share: the mock model server (OpenAI's
 * chat-completions wire format) and the tool its script calls. Test support only: it lives
 * outside `src/`, so it is neither built into `dist/` nor packed (`files` in package.json), and
 * it is no part of the package's API. The example imports it by path.
 */
import { jsonSchema, tool } from 'ai';

export { startMockOpenAiChat } from './mock-openai-chat';

/** `get_weather`: a fixed answer per city (`Paris: 15 °C`, `Oslo: 12 °C`). */
export const weatherTool = tool({
  description: 'Weather for a city',
  inputSchema: jsonSchema<{ city: string }>({
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
  }),
  execute: async ({ city }) => `${city}: ${city.length * 3} °C`,
});
