import type Database from 'better-sqlite3';
import { parseStreamName, type RecordedEvent } from '@arbor/event-store';
import { type ConversationEvent, type Message } from '@arbor/domain';

/** The conversation events this projection folds, read off a recorded event. */
const asConversationEvent = (e: RecordedEvent): ConversationEvent =>
  ({ type: e.type, data: e.data }) as ConversationEvent;

/**
 * Builds the per-event handler over prepared statements. Every write is keyed by the tenant and
 * conversation taken from the stream name, never from the event body.
 */
export const prepareConversationHandler = (db: Database.Database) => {
  const s = {
    insertConversation: db.prepare(
      `INSERT INTO rm_conversations (tenant_id, id, seq, title, metadata, tip, revision, position, created_at, updated_at, forked_from_conversation, forked_from_message)
       VALUES (@tenant, @id, @seq, @title, @metadata, NULL, @revision, @position, @at, @at, @ffc, @ffm)`,
    ),
    touch: db.prepare(
      `UPDATE rm_conversations SET revision = @revision, position = @position, updated_at = @at WHERE tenant_id = @tenant AND id = @id`,
    ),
    setTip: db.prepare(
      `UPDATE rm_conversations SET tip = @tip WHERE tenant_id = @tenant AND id = @id`,
    ),
    countTurn: db.prepare(
      `UPDATE rm_conversations SET turn_count = turn_count + 1 WHERE tenant_id = @tenant AND id = @id`,
    ),
    setCut: db.prepare(
      `UPDATE rm_conversations SET cut_at = @cutAt WHERE tenant_id = @tenant AND id = @id`,
    ),
    nextSeq: db.prepare(
      `UPDATE rm_conversations SET message_count = message_count + 1 WHERE tenant_id = ? AND id = ? RETURNING message_count`,
    ),
    depthOf: db.prepare(
      `SELECT depth FROM rm_messages WHERE tenant_id = ? AND conversation_id = ? AND id = ?`,
    ),
    parentOf: db.prepare(
      `SELECT parent_id, depth FROM rm_messages WHERE tenant_id = ? AND conversation_id = ? AND id = ?`,
    ),
    insertMessage: db.prepare(
      `INSERT INTO rm_messages (tenant_id, conversation_id, id, parent_id, role, depth, seq, turn_id, body)
       VALUES (@tenant, @conv, @id, @parent, @role, @depth, @seq, @turn, @body)`,
    ),
    activeAt: db.prepare(
      `SELECT message_id FROM rm_active_branch WHERE tenant_id = ? AND conversation_id = ? AND depth = ?`,
    ),
    truncateActive: db.prepare(
      `DELETE FROM rm_active_branch WHERE tenant_id = ? AND conversation_id = ? AND depth > ?`,
    ),
    insertActive: db.prepare(
      `INSERT INTO rm_active_branch (tenant_id, conversation_id, depth, message_id) VALUES (?, ?, ?, ?)`,
    ),
    insertFork: db.prepare(
      `INSERT OR REPLACE INTO rm_forks (tenant_id, source_id, fork_id, from_message_id, position) VALUES (?, ?, ?, ?, ?)`,
    ),
    upsertCheckpoint: db.prepare(
      `INSERT INTO rm_checkpoints (tenant_id, conversation_id, label, message_id, status, reason, digest, revision)
       VALUES (@tenant, @conv, @label, @messageId, @status, @reason, @digest, @revision)
       ON CONFLICT (tenant_id, conversation_id, label) DO UPDATE SET message_id = excluded.message_id,
         status = excluded.status, reason = excluded.reason, digest = excluded.digest, revision = excluded.revision`,
    ),
    insertFailure: db.prepare(
      `INSERT INTO rm_failures (tenant_id, conversation_id, failure_id, input, error, revision, pending) VALUES (?, ?, ?, ?, ?, ?, 1)`,
    ),
    resolveFailures: db.prepare(
      `UPDATE rm_failures SET pending = 0 WHERE tenant_id = ? AND conversation_id = ? AND pending = 1`,
    ),
  };

  /**
   * Moves the materialized active branch to end at `tip`: walk up from the new tip until a message
   * already on the branch at its depth (the common ancestor), cut below it, add the new path.
   * Costs the distance between old and new tip, not the depth of the conversation.
   */
  const moveActiveBranch = (tenant: string, conv: string, tip: string | null): void => {
    if (tip === null) {
      s.truncateActive.run(tenant, conv, -1);
      return;
    }
    const path: { id: string; depth: number }[] = [];
    let id: string | null = tip;
    let ancestorDepth = -1;
    while (id !== null) {
      const row = s.parentOf.get(tenant, conv, id) as
        { parent_id: string | null; depth: number } | undefined;
      if (!row) throw new Error(`projection: message ${id} of ${tenant}/${conv} is unknown`);
      const onBranch = s.activeAt.get(tenant, conv, row.depth) as
        { message_id: string } | undefined;
      if (onBranch?.message_id === id) {
        ancestorDepth = row.depth;
        break;
      }
      path.push({ id, depth: row.depth });
      id = row.parent_id;
    }
    s.truncateActive.run(tenant, conv, ancestorDepth);
    for (let i = path.length - 1; i >= 0; i--)
      s.insertActive.run(tenant, conv, path[i].depth, path[i].id);
  };

  const setTip = (tenant: string, conv: string, tip: string | null): void => {
    s.setTip.run({ tenant, id: conv, tip });
    moveActiveBranch(tenant, conv, tip);
  };

  const appendMessage = (tenant: string, conv: string, m: Message): void => {
    const parentDepth =
      m.parentId === null
        ? -1
        : ((s.depthOf.get(tenant, conv, m.parentId) as { depth: number } | undefined)?.depth ??
          null);
    if (parentDepth === null)
      throw new Error(`projection: parent ${m.parentId} of ${m.id} is unknown`);
    const { message_count: seq } = s.nextSeq.get(tenant, conv) as { message_count: number };
    s.insertMessage.run({
      tenant,
      conv,
      id: m.id,
      parent: m.parentId,
      role: m.role,
      depth: parentDepth + 1,
      seq,
      turn: m.turnId,
      body: JSON.stringify(m),
    });
  };

  const checkpoint = (
    tenant: string,
    conv: string,
    revision: number,
    c: {
      label: string;
      messageId: string;
      status: string;
      reason?: string | null;
      digest?: string | null;
    },
  ): void => {
    s.upsertCheckpoint.run({
      tenant,
      conv,
      label: c.label,
      messageId: c.messageId,
      status: c.status,
      reason: c.reason ?? null,
      digest: c.digest ?? null,
      revision,
    });
  };

  return (recorded: RecordedEvent): void => {
    const parts = parseStreamName(recorded.streamName);
    if (!parts || parts.category !== 'conv') return;
    const tenant = parts.tenantId;
    const conv = parts.entityId;
    const revision = Number(recorded.revision);
    const at = recorded.metadata.timestamp;
    const event = asConversationEvent(recorded);
    if (event.type === 'ConversationStarted') {
      s.insertConversation.run({
        tenant,
        id: conv,
        seq: Number(recorded.position),
        title: event.data.title ?? null,
        metadata:
          event.data.metadata === undefined || event.data.metadata === null
            ? null
            : JSON.stringify(event.data.metadata),
        revision,
        position: Number(recorded.position),
        at,
        ffc: event.data.forkedFrom?.conversationId ?? null,
        ffm: event.data.forkedFrom?.messageId ?? null,
      });
      if (event.data.forkedFrom) {
        s.insertFork.run(
          tenant,
          event.data.forkedFrom.conversationId,
          conv,
          event.data.forkedFrom.messageId,
          Number(recorded.position),
        );
      }
      return;
    }
    s.touch.run({ tenant, id: conv, revision, position: Number(recorded.position), at });
    switch (event.type) {
      case 'MessageAppended':
        appendMessage(tenant, conv, event.data.message);
        return;
      case 'TurnCommitted':
        s.countTurn.run({ tenant, id: conv });
        s.resolveFailures.run(tenant, conv);
        setTip(tenant, conv, event.data.tip);
        return;
      case 'TipMoved':
        setTip(tenant, conv, event.data.to);
        return;
      case 'CheckpointSet':
        checkpoint(tenant, conv, revision, {
          label: event.data.label,
          messageId: event.data.messageId,
          status: 'active',
        });
        return;
      case 'CheckpointRewound':
        checkpoint(tenant, conv, revision, {
          label: event.data.label,
          messageId: event.data.messageId,
          status: 'rewound',
          digest: event.data.digest ?? null,
        });
        return;
      case 'CheckpointDropped':
        checkpoint(tenant, conv, revision, {
          label: event.data.label,
          messageId: event.data.messageId,
          status: 'dropped',
          reason: event.data.reason,
        });
        return;
      case 'RunResumed':
        s.setCut.run({ tenant, id: conv, cutAt: event.data.cutAt });
        return;
      case 'TurnFailed':
        s.insertFailure.run(
          tenant,
          conv,
          event.data.failureId,
          JSON.stringify(event.data.input),
          JSON.stringify(event.data.error),
          revision,
        );
        return;
      default:
        return;
    }
  };
};
