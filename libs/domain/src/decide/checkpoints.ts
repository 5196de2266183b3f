import {
  type Decision,
  type ResultOf,
  type RewindCommand,
  type SetCheckpointCommand,
} from '../commands';
import { event } from '../events';
import { type ConversationState, getCheckpoint, getNode, isLiveCheckpoint } from '../state';
import { fail, failWith, staleTip, succeed } from './common';

const printable = (c: string): boolean => {
  const code = c.charCodeAt(0);
  return code > 0x1f && code !== 0x7f && c !== '/';
};

/** Labels: 1–128 printable characters, not only spaces, no slash (they travel in URL paths). */
export const isValidCheckpointLabel = (label: unknown): label is string =>
  typeof label === 'string' &&
  label.length >= 1 &&
  label.length <= 128 &&
  label.trim().length > 0 &&
  Array.from(label).every(printable);

/** A live label again at its target is a no-op; elsewhere `checkpoint_exists` unless `replace`. */
export const decideSetCheckpoint = (
  cmd: SetCheckpointCommand,
  state: ConversationState,
): Decision<ResultOf<'setCheckpoint'>> => {
  if (!isValidCheckpointLabel(cmd.label)) {
    return fail('invalid_command', 'label must be 1–128 printable characters without "/"');
  }
  const target = cmd.messageId ?? state.tip;
  const node = target === null ? undefined : getNode(state, target);
  if (target === null || node === undefined) {
    return fail('message_not_found', 'no such message to set a checkpoint at', {
      messageId: target,
    });
  }
  if (!node.boundary) {
    return fail('not_a_turn_boundary', 'checkpoints mark the end of a committed turn', {
      messageId: target,
    });
  }
  const existing = getCheckpoint(state, cmd.label);
  if (existing !== undefined && isLiveCheckpoint(existing)) {
    if (existing.messageId === target) {
      return succeed([], {
        label: cmd.label,
        messageId: target,
        revision: state.revision,
        replayed: true,
      });
    }
    if (cmd.replace !== true) {
      return fail('checkpoint_exists', 'this label is already set at another message', {
        label: cmd.label,
        messageId: existing.messageId,
      });
    }
  }
  const set = event('CheckpointSet', { label: cmd.label, messageId: target });
  return succeed([set], {
    label: cmd.label,
    messageId: target,
    revision: state.revision + 1,
    replayed: false,
  });
};

export const decideRewind = (
  cmd: RewindCommand,
  state: ConversationState,
): Decision<ResultOf<'rewind'>> => {
  const checkpoint = getCheckpoint(state, cmd.label);
  if (checkpoint === undefined) {
    return fail('checkpoint_not_found', 'no checkpoint with this label', { label: cmd.label });
  }
  if (!isLiveCheckpoint(checkpoint)) {
    return fail('checkpoint_dropped', 'the checkpoint was dropped; its target did not survive', {
      label: cmd.label,
      messageId: checkpoint.messageId,
      reason: checkpoint.reason,
    });
  }
  const stale = staleTip(state, cmd.expectedTip);
  if (stale !== null) return failWith(stale);
  const { messageId } = checkpoint;
  const digest = cmd.digest ?? null;
  const moves = state.tip !== messageId;
  // Already there and rewound, with no digest to keep: nothing changes, so nothing is appended.
  const events = [
    ...(moves || digest !== null || checkpoint.status !== 'rewound'
      ? [event('CheckpointRewound', { label: cmd.label, messageId, from: state.tip, digest })]
      : []),
    ...(moves ? [event('TipMoved', { from: state.tip, to: messageId, reason: 'rewind' })] : []),
  ];
  return succeed(events, { tip: messageId, revision: state.revision + events.length });
};
