import { conversationsProjection } from '../conversations';
import { createConversationQueries } from '../conversations/queries';
import { sqliteSink } from '../projector';
import { asyncQueries } from '../read-model-port';
import { openReadModelDb } from '../read-model-db';
import { readModelContract } from './read-model-contract';

const open = new Map<object, { close(): void }>();

readModelContract('SQLite (embedded)', {
  open: async () => {
    const db = openReadModelDb(':memory:');
    const sink = sqliteSink(db, 'contract', [conversationsProjection]);
    const rm = { sink, queries: asyncQueries(createConversationQueries(db)) };
    open.set(rm, db);
    return rm;
  },
  close: async (rm) => {
    open.get(rm)?.close();
    open.delete(rm);
  },
});
