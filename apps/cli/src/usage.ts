export const USAGE = `arbor — event-sourced conversation history for LLM agents

usage:
  arbor serve                      start the HTTP service (same as npm start)
      --projector on|off           with REDIS_URL or REDIS_CLUSTER_URLS: join the projector pool
                                   (default on) or serve only (a pure API replica)
  arbor project                    with REDIS_URL or REDIS_CLUSTER_URLS: one projector worker, no
                                   HTTP; takes its share of the partitions by lease
                                   (ARBOR_LEASE_MS, ARBOR_PARTITIONS)
  arbor rebuild                    drop the read models and replay the log from position 0
                                   (stop the server first, or call POST /v1/admin/projections/rebuild)
  arbor verify                     recompute every event's hash chain from the log itself and
                                   report modified, removed, reordered or inserted events with
                                   their positions (exit code 4 when the log does not verify);
                                   a missing data directory, log or audit secret is an error
                                   (nothing is created)
  arbor erase <conversation>...    erase conversations (each data key destroyed, ConversationErased
                                   appended, read models dropped); a progress bar when more than
                                   one (ids or a lineage), prints what was erased
      --tenant <id>                the tenant (default: the local tenant)
      --reason <text>              recorded in the erasure event (in clear: no personal data)
      --forks keep|erase           keep the forks (default) or erase the lineage below it
  arbor sweep                      apply every tenant's retention now (conversations idle longer
                                   than retentionDays are erased); prints a summary
  arbor import <file|folder>       import Claude Code, Codex and pi session files (*.jsonl, folders
                                   recursively): one conversation per session (subagent
                                   transcripts their own), real branches kept, committed turn by
                                   turn through the API's command path; prints what was skipped
      --concurrency <n>            conversations committed at once (default 4)
      --report <file.json>         write every file's line-by-line report as JSON
      --verbose                    list every skipped or changed line in the summary
  arbor export <conversation>      print a conversation
      --format jsonl|markdown|html|claude-code|pi
                                   (default jsonl; html: one self-contained page, tree + branch;
                                   claude-code, pi: a session file that tool resumes, the tree
                                   with the active branch last, checkpoints as pi labels; what
                                   the format cannot carry is listed on stderr)
      --scope tree|branch          every message or the active branch
                                   (default: branch for markdown, tree otherwise)
      --output <file>              write to a file instead of stdout
      --report <file.json>         claude-code, pi: write what was not carried, per message
  arbor tree <conversation>        the tree in the terminal: branch points (⑂), tip, checkpoints
      --expand                     do not fold long linear runs
      --full-ids                   print whole message ids
      --width <n>                  width of the message previews (default 72)
  arbor replay <conversation> --revision <n>
                                   the state as of revision n (tip, active branch, checkpoints,
                                   compactions in force, pending failure)
      --context <contextId>        reproduce that handed-out context and compare its hash
                                   (exit code 3 on a mismatch)
      --json                       print the API's JSON answer
  arbor help

every command takes --data-dir <dir> (over ARBOR_DATA_DIR, default ./data) for the embedded
store; an unknown flag or a stray argument is a usage error (exit code 2).

where import, export, tree and replay run (the same results either way):
  embedded (default)               the store in ARBOR_DATA_DIR (or --data-dir <dir>), through the
                                   API's command and query buses; stop a server using that
                                   directory first. Acts as --tenant <id>, default the tenant
                                   named "local" (created on first use).
  --url <url> --key <api key>      a running server (or ARBOR_URL and ARBOR_API_KEY)

configuration comes from the environment (ARBOR_DATA_DIR, EVENTSTORE_CONNECTION_STRING, ...): see docs/configuration.md`;
