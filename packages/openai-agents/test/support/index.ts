/**
 * What this package's tests and `examples/openai-agents.ts` share: the mock model server
 * (OpenAI's Responses wire format), the two tools its script calls, the agent that has them and
 * a Runner pointed at the mock. Test support only: it lives outside `src/`, so it is neither
 * built into `dist/` nor packed (`files` in package.json; pack.spec.ts checks), and it is no
 * part of the package's API. The example imports it by path.
 */
import { Agent, OpenAIProvider, Runner, tool } from '@openai/agents';

export { type ResponsesRequest, startMockResponses } from './mock-openai-responses';

/** `get_weather`: a fixed answer per city (`Paris: 15 °C`, `Oslo: 12 °C`). */
export const weatherTool = tool({
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

/** `delete_file`: needs approval, so a run that calls it pauses. */
export const deleteFileTool = tool({
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

/** The agent the mock's script is written for (both tools), with any option replaced. */
export const mockAgent = (extra: Partial<ConstructorParameters<typeof Agent>[0]> = {}) =>
  new Agent({
    name: 'assistant',
    instructions: 'Be brief.',
    model: 'gpt-5-mini',
    tools: [weatherTool, deleteFileTool],
    ...extra,
  });

/** A Runner whose model is the mock at `baseURL` (Responses API). */
export const mockRunner = (baseURL: string) =>
  new Runner({
    modelProvider: new OpenAIProvider({ baseURL, apiKey: 'mock', useResponses: true }),
  });
