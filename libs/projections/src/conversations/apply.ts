import type Database from 'better-sqlite3';
import { parseStreamName, type RecordedEvent } from '@arbor/event-store';
import { type ConversationEvent, type ConversationEventType, type Message } from '@arbor/domain';

/** The domain event that erases a conversation: its rows go, a marker stays. */
export const CONVERSATION_ERASED = 'ConversationErased' satisfies ConversationEventType;

const asConversationEvent = (e: RecordedEvent): ConversationEvent =>
  ({ type: e.type, data: e.data }) as ConversationEvent;

/** Keys come from the stream name, never from the event body. */
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
    setCut: db.prepare(
      `UPDATE rm_conversations SET cut_at = @cutAt WHERE tenant_id = @tenant AND id = @id`,
    ),
    touchNextSeq: db.prepare(
      `UPDATE rm_conversations SET message_count = message_count + 1, revision = @revision, position = @position, updated_at = @at
       WHERE tenant_id = @tenant AND id = @id RETURNING message_count`,
    ),
    touchTurn: db.prepare(
      `UPDATE rm_conversations SET revision = @revision, position = @position, updated_at = @at,
         turn_count = turn_count + 1, tip = @tip WHERE tenant_id = @tenant AND id = @id`,
    ),
    lastActive: db.prepare(
      `SELECT depth, message_id FROM rm_active_branch WHERE tenant_id = ? AND conversation_id = ? ORDER BY depth DESC LIMIT 1`,
    ),
    depthOf: db.prepare(
      `SELECT depth FROM rm_messages WHERE tenant_id = ? AND conversation_id = ? AND id = ?`,
    ),
    parentOf: db.prepare(
      `SELECT parent_id, depth FROM rm_messages WHERE tenant_id = ? AND conversation_id = ? AND id = ?`,
    ),
    insertMessage: db.prepare(
      `INSERT INTO rm_messages (tenant_id, conversation_id, id, parent_id, role, depth, seq, turn_id, revision, bytes)
       VALUES (@tenant, @conv, @id, @parent, @role, @depth, @seq, @turn, @revision, @bytes)`,
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
    insertDigest: db.prepare(
      `INSERT INTO rm_digests (tenant_id, conversation_id, revision, message_id, label, digest) VALUES (?, ?, ?, ?, ?, ?)`,
    ),
    countCopiedTurns: db.prepare(
      `UPDATE rm_conversations SET turn_count = (SELECT COUNT(DISTINCT turn_id) FROM rm_messages WHERE tenant_id = @tenant AND conversation_id = @id)
       WHERE tenant_id = @tenant AND id = @id`,
    ),
    appliedRevision: db.prepare(
      `SELECT revision FROM rm_conversations WHERE tenant_id = ? AND id = ?`,
    ),
    erased: db.prepare(`SELECT 1 FROM rm_erased WHERE tenant_id = ? AND id = ?`),
    insertErased: db.prepare(
      `INSERT OR IGNORE INTO rm_erased (tenant_id, id, revision, erased_at, reason) VALUES (?, ?, ?, ?, ?)`,
    ),
    eraseRows: [
      'DELETE FROM rm_conversations WHERE tenant_id = @tenant AND id = @conv',
      'DELETE FROM rm_forks WHERE tenant_id = @tenant AND (source_id = @conv OR fork_id = @conv)',
      'DELETE FROM rm_messages WHERE tenant_id = @tenant AND conversation_id = @conv',
      'DELETE FROM rm_active_branch WHERE tenant_id = @tenant AND conversation_id = @conv',
      'DELETE FROM rm_checkpoints WHERE tenant_id = @tenant AND conversation_id = @conv',
      'DELETE FROM rm_failures WHERE tenant_id = @tenant AND conversation_id = @conv',
      'DELETE FROM rm_digests WHERE tenant_id = @tenant AND conversation_id = @conv',
    ].map((sql) => db.prepare(sql)),
    resolveFailures: db.prepare(
      `UPDATE rm_failures SET pending = 0 WHERE tenant_id = ? AND conversation_id = ? AND pending = 1`,
    ),
  };

  /** Walks up to the common ancestor only: costs the tips' distance, not the depth. */
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

  /** Depths just inserted (a turn chains); dies with its run, so never outlives a row. */
  const recent = new Map<string, number>();
  const keyOf = (tenant: string, conv: string, id: string) => `${tenant}\u0000${conv}\u0000${id}`;
  const depthOf = (tenant: string, conv: string, id: string): number | null =>
    recent.get(keyOf(tenant, conv, id)) ??
    (s.depthOf.get(tenant, conv, id) as { depth: number } | undefined)?.depth ??
    null;

  const extendActiveBranch = (
    tenant: string,
    conv: string,
    parentId: string | null,
    messageIds: readonly string[],
  ): boolean => {
    const last = s.lastActive.get(tenant, conv) as
      { depth: number; message_id: string } | undefined;
    const parentDepth =
      parentId === null
        ? last === undefined
          ? -1
          : null
        : last?.message_id === parentId
          ? last.depth
          : null;
    if (parentDepth === null || messageIds.length === 0) return false;
    const tipDepth = recent.get(keyOf(tenant, conv, messageIds[messageIds.length - 1]));
    if (tipDepth !== parentDepth + messageIds.length) return false;
    messageIds.forEach((id, i) => s.insertActive.run(tenant, conv, parentDepth + 1 + i, id));
    return true;
  };

  const appendMessage = (
    tenant: string,
    conv: string,
    m: Message,
    touch: { revision: number; position: number; at: string },
    bytes: number,
  ): void => {
    const parentDepth = m.parentId === null ? -1 : depthOf(tenant, conv, m.parentId);
    if (parentDepth === null)
      throw new Error(`projection: parent ${m.parentId} of ${m.id} is unknown`);
    const { message_count: seq } = s.touchNextSeq.get({ tenant, id: conv, ...touch }) as {
      message_count: number;
    };
    s.insertMessage.run({
      tenant,
      conv,
      id: m.id,
      parent: m.parentId,
      role: m.role,
      depth: parentDepth + 1,
      seq,
      turn: m.turnId,
      revision: touch.revision,
      bytes,
    });
    if (recent.size >= 4096) recent.clear();
    recent.set(keyOf(tenant, conv, m.id), parentDepth + 1);
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
    const applied = s.appliedRevision.get(tenant, conv) as { revision: number } | undefined;
    if (applied !== undefined && revision <= applied.revision) return;
    // An erased conversation keeps no rows: nothing before or after its erasure is applied again.
    if (s.erased.get(tenant, conv) !== undefined) return;
    const at = recorded.metadata.timestamp;
    if (recorded.type === CONVERSATION_ERASED) {
      for (const statement of s.eraseRows) statement.run({ tenant, conv });
      const reason = (recorded.data as { reason?: unknown } | null)?.reason;
      s.insertErased.run(tenant, conv, revision, at, typeof reason === 'string' ? reason : '');
      return;
    }
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
    const position = Number(recorded.position);
    if (event.type === 'MessageAppended') {
      appendMessage(
        tenant,
        conv,
        event.data.message,
        { revision, position, at },
        JSON.stringify(event.data.message).length,
      );
      return;
    }
    if (event.type === 'TurnCommitted') {
      const { tip, parentId, messageIds } = event.data;
      s.touchTurn.run({ tenant, id: conv, revision, position, at, tip });
      s.resolveFailures.run(tenant, conv);
      if (!extendActiveBranch(tenant, conv, parentId, messageIds)) {
        moveActiveBranch(tenant, conv, tip);
      }
      return;
    }
    s.touch.run({ tenant, id: conv, revision, position, at });
    switch (event.type) {
      case 'TipMoved':
        // A fork's copied path arrives as messages closed by TipMoved{fork}: its whole turns count.
        if (event.data.reason === 'fork') s.countCopiedTurns.run({ tenant, id: conv });
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
        if (event.data.digest) {
          s.insertDigest.run(
            tenant,
            conv,
            revision,
            event.data.messageId,
            event.data.label,
            event.data.digest,
          );
        }
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
