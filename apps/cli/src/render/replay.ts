/** `arbor replay`: the state as of revision N, and a reproduced context, for people. */
import { type ReplayView, type ReproductionView } from '../client/types';
import { preview, roleLetter } from './preview';

export const renderReplay = (r: ReplayView, options: { width: number }): string => {
  const out = [
    `${r.conversationId} as of revision ${r.revision} (${r.event.type} at ${r.event.timestamp})`,
    `  title: ${r.conversation.title ?? '(none)'}`,
    `  tip: ${r.tip ?? 'none'} · active branch ${r.branch.length} message(s) · ` +
      `${r.tree.nodes.length} in the tree · ${r.tree.branchPoints.length} branch point(s)`,
    `  window: ${r.window.messages} message(s) from ${r.window.cutAt ?? '(start)'}`,
  ];
  out.push(`checkpoints: ${r.checkpoints.length === 0 ? 'none' : ''}`);
  for (const c of r.checkpoints)
    out.push(`  ${c.label} → ${c.messageId} (${c.status}${c.reason ? `: ${c.reason}` : ''})`);
  const { decisions, inForce, notInForce } = r.compactions;
  out.push(
    `compactions: ${decisions.length} decision(s), ${inForce.length} in force` +
      (inForce.length > 0 ? `: ${inForce.join(', ')}` : ''),
  );
  for (const n of notInForce) out.push(`  not in force: ${n.decisionId} (${n.reason})`);
  out.push(
    `pending failure: ${r.pendingFailure === null ? 'none' : `${r.pendingFailure.failureId} ${JSON.stringify(r.pendingFailure.error)}`}`,
    `last context: ${r.lastContext === null ? 'none' : `${r.lastContext.contextId} (revision ${r.lastContext.revision})`}`,
    'active branch:',
  );
  r.branch.items.forEach((m, i) => {
    out.push(
      `  ${String(i + 1).padStart(4)}. ${roleLetter(m.role)} ${m.id}  ${preview(m, options.width)}`.trimEnd(),
    );
  });
  return out.join('\n') + '\n';
};

export const renderReproduction = (r: ReproductionView): string => {
  const out = [
    `context ${r.contextId} (revision ${r.revision}, built on revision ${r.basedOnRevision}) for ${r.provider} ${r.model}`,
    `  recorded hash:   ${r.recordedHash}`,
    `  reproduced hash: ${r.bodyHash ?? '(not reproduced)'}`,
    r.match
      ? '  MATCH: the reproduced body is byte for byte the one handed out'
      : `  MISMATCH: ${r.mismatch?.reason ?? ''} ${r.mismatch?.detail ?? ''}`.trimEnd(),
  ];
  for (const c of r.checks)
    out.push(
      `  ${c.equal ? 'ok  ' : 'DIFF'} ${c.name}: recorded ${JSON.stringify(c.recorded)}, reproduced ${JSON.stringify(c.reproduced)}`,
    );
  return out.join('\n') + '\n';
};
