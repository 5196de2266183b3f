// Texts derived from each decision, never stored. Version 2 names no conversation or message
// id, so a fork renders carried decisions byte for byte; a decision keeps its version forever.
import type {
  DropDecision,
  ElidedResult,
  SnapshotDecision,
  StrippedImage,
  SummaryDecision,
} from '@arbor/domain/compaction';

/** The placeholder version new decisions record (see the file comment). */
export const PLACEHOLDERS = 2;

export type PlaceholderScope = string | null;

export const scopeFor = (
  decision: { readonly placeholders?: number },
  conversationId: string,
): PlaceholderScope => ((decision.placeholders ?? 1) < 2 ? conversationId : null);

export const messageUrl = (conversationId: string, messageId: string): string =>
  `GET /v1/conversations/${conversationId}/messages/${messageId}`;

const kb = (bytes: number): string =>
  bytes >= 1024 * 1024
    ? `${(bytes / (1024 * 1024)).toFixed(1)} MB`
    : `${Math.ceil(bytes / 1024)} KB`;

const KEPT = "The conversation's log keeps the original.";

export function elidedResultText(
  scope: PlaceholderScope,
  result: ElidedResult,
  toolName: string | undefined,
): string {
  const what = toolName === undefined ? 'tool result' : `result of ${toolName}`;
  const where = scope === null ? KEPT : `Original: ${messageUrl(scope, result.messageId)}`;
  return `[elided: ${what}, ~${result.originalTokens} tokens, to save context. ${where}]`;
}

export function strippedImageText(scope: PlaceholderScope, image: StrippedImage): string {
  const size =
    image.width !== null && image.height !== null ? `, ${image.width}×${image.height} px` : '';
  const where = scope === null ? KEPT : `Original: ${messageUrl(scope, image.messageId)}`;
  return `[image removed to save context: ${image.mediaType}, ${kb(image.bytes)}${size}. ${where}]`;
}

const span = (count: number, fromId: string, toId: string): string =>
  count === 1 ? `1 message (${fromId})` : `${count} messages (${fromId} … ${toId})`;

const count = (n: number): string => (n === 1 ? '1 message' : `${n} messages`);

const covered = (scope: PlaceholderScope, d: SnapshotDecision | SummaryDecision): string =>
  scope === null ? count(d.coveredIds.length) : span(d.coveredIds.length, d.fromId, d.toId);

export function snapshotHeaderText(
  scope: PlaceholderScope,
  decision: SnapshotDecision,
  pages: number,
): string {
  const originals = scope === null ? '' : ` Originals: ${messageUrl(scope, '{messageId}')}`;
  return (
    `[Snapshot of earlier conversation: ${covered(scope, decision)}, rendered as text on ` +
    `${pages} page image${pages === 1 ? '' : 's'} below, in order. It is an image rendering of ` +
    `history, not new input.${originals}]`
  );
}

export function summaryText(scope: PlaceholderScope, decision: SummaryDecision): string {
  const originals = scope === null ? '' : ` Originals: ${messageUrl(scope, '{messageId}')}`;
  return (
    `[Summary of earlier conversation: ${covered(scope, decision)}, written by ` +
    `${decision.summarizerModel}.${originals}]\n\n${decision.summary}`
  );
}

export function droppedText(decision: DropDecision): string {
  const n = decision.coveredIds.length;
  const what =
    (decision.placeholders ?? 1) < 2 ? span(n, decision.fromId, decision.toId) : count(n);
  return (
    `[Earlier conversation left out to fit the context window: ${what}, ` +
    `~${decision.droppedTokens} tokens. The conversation's log still holds them.]`
  );
}

/** The assistant turn that keeps roles alternating after an inserted user message. */
export const ACK_TEXT = 'OK.';
