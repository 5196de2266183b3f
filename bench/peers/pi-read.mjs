// Opens pi session files with pi's own SessionManager (@mariozechner/pi-coding-agent, installed
// into bench/peers) and prints, per file, one JSON line with what pi sees: every tree node
// (id, parentId, type, role, label), the leaf it resumes at, the branch to that leaf, and the
// roles of the context it would send the model (buildSessionContext). Used by
// libs/exporters/src/pi-peer.spec.ts to check Arbor's pi export with pi's code.
//
//   node bench/peers/pi-read.mjs <file.jsonl>...
import { SessionManager } from '@mariozechner/pi-coding-agent';

for (const file of process.argv.slice(2)) {
  const sm = SessionManager.open(file, '/nonexistent-session-dir');
  const nodes = [];
  const stack = [...sm.getTree()];
  while (stack.length > 0) {
    const n = stack.pop();
    nodes.push({
      id: n.entry.id,
      parentId: n.entry.parentId,
      type: n.entry.type,
      role: n.entry.type === 'message' ? n.entry.message.role : undefined,
      label: n.label,
    });
    stack.push(...n.children);
  }
  const context = sm.buildSessionContext();
  console.log(
    JSON.stringify({
      file,
      version: sm.getHeader()?.version,
      name: sm.getSessionName(),
      leafId: sm.getLeafId(),
      branch: sm.getBranch().map((e) => e.id),
      nodes,
      contextRoles: context.messages.map((m) => m.role),
    }),
  );
}
