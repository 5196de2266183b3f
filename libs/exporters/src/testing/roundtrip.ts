/** Import → commit → export → import again, and the shapes to compare (tests only). */
import {
  activeBranch,
  type Block,
  isLiveCheckpoint,
  listCheckpoints,
  type Message,
  pmapEntries,
} from '@arbor/domain';
import { messagesOf, type Session } from '@arbor/domain/testing/session';
import { type ImportedConversation } from '@arbor/importers';
import { commitConversation } from '@arbor/importers/testing/commit';
import { type ExportSource } from '../types';

export interface Committed {
  source: ExportSource;
  tree: TreeShape;
  failures: string[];
}

/** What a round trip must keep: every message (id, parent, role, content) and the branch. */
export interface TreeShape {
  messages: { id: string; parentId: string | null; role: string; content: unknown[] }[];
  activeBranch: string[];
  checkpoints: { label: string; messageId: string }[];
}

/** Content as both formats can say it: a tool result's text as one text block. */
const normal = (b: Block): unknown => {
  if (b.type !== 'tool_result') return b;
  const content =
    typeof b.content !== 'string'
      ? b.content
      : b.content === ''
        ? []
        : [{ type: 'text', text: b.content }];
  return { ...b, content, is_error: b.is_error === true };
};

/** The export source and the shape of a committed session. */
export const fromSession = (
  session: Session,
  title: string | null,
  conversationId = 'conv-1',
  failures: string[] = [],
): Committed => {
  const messages = [...messagesOf(session.log).values()];
  const present = new Set([...pmapEntries(session.state.messages)].map(([id]) => id));
  const live = messages.filter((m) => present.has(m.id));
  const checkpoints = listCheckpoints(session.state)
    .filter(isLiveCheckpoint)
    .map((cp) => ({ label: cp.label, messageId: cp.messageId }));
  return {
    failures,
    source: { conversationId, title, messages: live, tip: session.state.tip, checkpoints },
    tree: {
      messages: live
        .map((m: Message) => ({
          id: m.id,
          parentId: m.parentId,
          role: m.role,
          content: m.content.map(normal),
        }))
        .sort((a, b) => a.id.localeCompare(b.id)),
      activeBranch: activeBranch(session.state),
      checkpoints: [...checkpoints].sort((a, b) => a.label.localeCompare(b.label)),
    },
  };
};

/** An imported conversation committed through the domain's decider. */
export const commitImported = (c: ImportedConversation, conversationId = 'conv-1'): Committed => {
  const { session, failures } = commitConversation(c);
  return fromSession(session, c.title, conversationId, failures);
};
