/**
 * The html export, made in the browser from what the API answered (conversation, tree, every
 * message) by the same renderer as `arbor export --format html`: one self-contained page.
 */
import { type Message as DomainMessage } from '@arbor/domain';
import { type ConversationInfo, type TreeView } from '../../cli/src/client/types';
import { renderHtml } from '../../cli/src/render/html';
import { type Conversation, type Message, type Tree } from './api';

export const exportHtml = (conversation: Conversation, tree: Tree, messages: Message[]): string =>
  // The wire JSON is the renderer's input type (the CLI's HTTP client reads the same answers).
  renderHtml(
    conversation as unknown as ConversationInfo,
    tree as unknown as TreeView,
    messages as unknown as DomainMessage[],
  );
