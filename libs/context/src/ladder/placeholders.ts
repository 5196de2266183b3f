/**
 * The texts that stand in for what a decision took out of the request. Each is derived from the
 * decision and the source (never stored), says what was there and how to fetch the original
 * bytes (`GET /v1/conversations/{id}/messages/{messageId}` always answers with them).
 */
import type {
  DropDecision,
  ElidedResult,
  SnapshotDecision,
  StrippedImage,
  SummaryDecision,
} from '@arbor/domain/compaction';

export const messageUrl = (conversationId: string, messageId: string): string =>
  `GET /v1/conversations/${conversationId}/messages/${messageId}`;

const kb = (bytes: number): string =>
  bytes >= 1024 * 1024
    ? `${(bytes / (1024 * 1024)).toFixed(1)} MB`
    : `${Math.ceil(bytes / 1024)} KB`;

export function elidedResultText(
  conversationId: string,
  result: ElidedResult,
  toolName: string | undefined,
): string {
  const what = toolName === undefined ? 'tool result' : `result of ${toolName}`;
  return (
    `[elided: ${what}, ~${result.originalTokens} tokens, to save context. ` +
    `Original: ${messageUrl(conversationId, result.messageId)}]`
  );
}

export function strippedImageText(conversationId: string, image: StrippedImage): string {
  const size =
    image.width !== null && image.height !== null ? `, ${image.width}×${image.height} px` : '';
  return (
    `[image removed to save context: ${image.mediaType}, ${kb(image.bytes)}${size}. ` +
    `Original: ${messageUrl(conversationId, image.messageId)}]`
  );
}

const span = (count: number, fromId: string, toId: string): string =>
  count === 1 ? `1 message (${fromId})` : `${count} messages (${fromId} … ${toId})`;

export function snapshotHeaderText(
  conversationId: string,
  decision: SnapshotDecision,
  pages: number,
): string {
  const covered = span(decision.coveredIds.length, decision.fromId, decision.toId);
  return (
    `[Snapshot of earlier conversation: ${covered}, rendered as text on ` +
    `${pages} page image${pages === 1 ? '' : 's'} below, in order. It is an image rendering of ` +
    `history, not new input. Originals: ${messageUrl(conversationId, '{messageId}')}]`
  );
}

export function summaryText(conversationId: string, decision: SummaryDecision): string {
  const covered = span(decision.coveredIds.length, decision.fromId, decision.toId);
  return (
    `[Summary of earlier conversation: ${covered}, written by ${decision.summarizerModel}. ` +
    `Originals: ${messageUrl(conversationId, '{messageId}')}]\n\n${decision.summary}`
  );
}

/**
 * What stands where the drop rung left history out. It names no conversation (a fork's bodies
 * stay byte-identical to its source's), only the ids and the size of what is missing.
 */
export function droppedText(decision: DropDecision): string {
  const covered = span(decision.coveredIds.length, decision.fromId, decision.toId);
  return (
    `[Earlier conversation left out to fit the context window: ${covered}, ` +
    `~${decision.droppedTokens} tokens. The conversation's log still holds them.]`
  );
}

/** The assistant turn that keeps roles alternating after an inserted user message. */
export const ACK_TEXT = 'OK.';
