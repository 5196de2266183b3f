/**
 * The texts that stand in for what a decision took out of the request. Each is derived from the
 * decision and the source (never stored) and says what was there.
 *
 * Versioned by the decision's `placeholders` field (`PLACEHOLDERS`, now 2): version 1 (absent)
 * texts also say where the original is (`GET /v1/conversations/{id}/messages/{messageId}`) and
 * name message ids; version 2 texts name no conversation and no message id, so a fork (new
 * conversation id, new message ids) renders the decisions it carries over byte for byte as its
 * source did and keeps the provider's prompt cache. A decision keeps its version forever, so a
 * context handed out before reproduces byte for byte.
 */
import type {
  DropDecision,
  ElidedResult,
  SnapshotDecision,
  StrippedImage,
  SummaryDecision,
} from '@arbor/domain/compaction';

/** The placeholder version new decisions record (see the file comment). */
export const PLACEHOLDERS = 2;

/** The conversation a version-1 placeholder names, or null for today's (version 2+) texts. */
export type PlaceholderScope = string | null;

/** Which scope a decision's texts are rendered with. */
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

/** Version 2: where the original is, without naming the conversation or the message. */
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

/** Version 2: how many messages, no ids (a fork's copies have other ids). */
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

/**
 * What stands where the drop rung left history out: never a conversation; version 1 names the
 * first and last message ids, version 2 only how many messages and tokens are missing.
 */
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
