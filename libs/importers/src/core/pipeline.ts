/** The format-neutral steps every importer runs on its records. */
import { type SourceRecord } from '../types';
import { buildNodes } from './nodes';
import { type Notes } from './notes';
import { dropBrokenPairs, mergeAssistantRuns, noteEmptyNodes } from './repair';
import { type BuildOptions, buildConversations, type CoreConversation } from './turns';

export const recordsToConversations = (
  records: readonly SourceRecord[],
  notes: Notes,
  options: BuildOptions = {},
): CoreConversation[] => {
  const graph = buildNodes(records, notes);
  dropBrokenPairs(graph, notes);
  noteEmptyNodes(graph, notes);
  mergeAssistantRuns(graph, notes);
  return buildConversations(graph, notes, options);
};
