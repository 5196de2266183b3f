import { type Projection } from '../projection';
import { prepareConversationHandler } from './apply';
import { CONVERSATION_TABLES, dropConversationTables, migrateConversationTables } from './schema';

export const conversationsProjection: Projection = {
  name: 'conversations',
  migrate: migrateConversationTables,
  drop: dropConversationTables,
  tables: CONVERSATION_TABLES,
  prepare: prepareConversationHandler,
};

export * from './queries';
export { eventMessages, logMessages, type MessageSource } from './content';
export { CONVERSATION_ERASED } from './apply';
