/**
 * LangGraph's own conformance suite for checkpointers (`@langchain/langgraph-checkpoint-validation`:
 * put, putWrites, getTuple, list, deleteThread) against `ArborSaver` on the real app. Each
 * checkpointer the suite asks for gets a tenant of its own, so no state is shared between them.
 */
import { validate } from '@langchain/langgraph-checkpoint-validation';
import { ArborClient } from '@arbor/client';
import { type Harness, startHarness } from '../../../test/support/harness';
import { ArborSaver } from '../src';

// The suite is written for vitest; its one `expect.soft` is Jest's `expect` (a hard check).
(expect as unknown as { soft: typeof expect }).soft = expect;

let h: Harness;
validate<ArborSaver>({
  checkpointerName: '@arbor/langgraph',
  beforeAllTimeout: 60_000,
  beforeAll: async () => {
    h = await startHarness();
  },
  afterAll: async () => {
    await h.destroy();
  },
  createCheckpointer: async () => {
    const { apiKey } = await h.createTenant('langgraph-validation');
    return new ArborSaver({ client: new ArborClient({ baseUrl: h.baseUrl, apiKey }) });
  },
});
