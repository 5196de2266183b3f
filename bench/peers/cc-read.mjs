// Reads Claude Code session files with a third-party reader, @claude-sessions/core (installed
// into bench/peers), the way it reads ~/.claude/projects: HOME is the folder given, the project
// the one named. Prints one JSON line per session: what listSessions says (title, message count)
// and the user/assistant records readSession returns (uuid, parentUuid, type). Used by
// libs/exporters/src/claude-code-peer.spec.ts to check Arbor's Claude Code export.
//
//   HOME=<dir> node bench/peers/cc-read.mjs <project>
import { Effect } from 'effect';
import { listSessions, readSession } from '@claude-sessions/core';

const [, , project] = process.argv;
const sessions = await Effect.runPromise(listSessions(project));
for (const s of sessions) {
  const records = await Effect.runPromise(readSession(project, s.id));
  console.log(
    JSON.stringify({
      id: s.id,
      title: s.title,
      messageCount: s.messageCount,
      records: records
        .filter((m) => m.type === 'user' || m.type === 'assistant')
        .map((m) => ({ uuid: m.uuid, parentUuid: m.parentUuid ?? null, type: m.type })),
    }),
  );
}
