import { type ConversationRow, type ForkRow } from '@arbor/projections';

export const conversationView = (c: ConversationRow & { forks: ForkRow[] }) => ({
  id: c.id,
  title: c.title,
  tip: c.tip,
  revision: c.revision,
  lineage: { forkedFrom: c.forkedFrom, forks: c.forks },
  counts: { messages: c.messageCount, turns: c.turnCount },
  metadata: c.metadata,
  cutAt: c.cutAt,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});
