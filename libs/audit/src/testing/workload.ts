/** A deterministic, conversation-like workload written through the chain decorator. Tests only. */
import { type EventData, type EventStore } from '@arbor/event-store';

export const workloadEvent = (stream: string, i: number, j: number): EventData => ({
  type: j % 3 === 2 ? 'TurnCommitted' : 'MessageAppended',
  data: {
    messageId: `m-${stream}-${i}-${j}`,
    role: j % 2 === 0 ? 'user' : 'assistant',
    content: [{ type: 'text', text: `turn ${i} block ${j} of ${stream}: some words` }],
    tokens: 10 + ((i * 7 + j) % 50),
  },
  metadata: {
    tenantId: 'tenant1',
    actor: 'key_1',
    timestamp: new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString(),
    correlationId: `req-${i}`,
  },
});

/** `turns` appends of `perTurn` events, round-robin over `streams` streams, exact revisions. */
export const writeWorkload = async (
  store: EventStore,
  {
    streams = 5,
    turns = 40,
    perTurn = 3,
  }: { streams?: number; turns?: number; perTurn?: number } = {},
): Promise<string[]> => {
  const names = Array.from({ length: streams }, (_, s) => `conv-tenant1.c${s}`);
  const revisions = new Map<string, bigint>();
  for (let i = 0; i < turns; i++) {
    const stream = names[i % streams];
    const current = revisions.get(stream);
    const events = Array.from({ length: perTurn }, (_, j) => workloadEvent(stream, i, j));
    const result = await store.appendToStream(stream, events, {
      expectedRevision: current ?? 'no_stream',
    });
    revisions.set(stream, result.nextExpectedRevision);
  }
  return names;
};
