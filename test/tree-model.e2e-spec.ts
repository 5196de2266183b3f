/**
 * Model-based test of the conversation tree (fast-check `fc.commands` + `fc.asyncModelRun`).
 *
 * Random sequences of commands drive the real app (real SQLite files in a temp dir, over HTTP)
 * and a small independent model (test/support/model/model.ts: messages with parents, tip,
 * checkpoints label → target/status, forks with their id maps, the pending failure, cuts, and
 * the compaction decisions recorded, with the message ids each names). Commands: start, commit a
 * turn (on the tip, from an earlier turn end = a new branch, on a mid-turn message = refused;
 * plain or with tool loops; long ones carry several KB of token-dense tool output and answers,
 * and turns carry PNG images), retry a turn by turnId (replay, or 409 for other content), move
 * the tip, fork (at the tip or an earlier turn end; later commands run on forks too), set a
 * checkpoint (refusals included), rewind (dropped → 409), resume (dropped checkpoints predicted by
 * the model), record a failure, GET retry, ask for a context, and restart the app on the same data
 * directory. Every run starts from a conversation of four turns (~20k tokens, four images).
 *
 * Context calls: 4 providers, auto / shake / snapshot / compact, sometimes twice, sometimes with
 * capability overrides (keepImages, minElisionSavings, protectTokens), 3 in 4 on the conversation
 * with the heaviest live window (by the report's estimate). Budgets are mostly relative: 35–90 %
 * of what GET .../context/report estimates now (windows under 6,000 tokens get a fixed 6,000
 * instead), so the ladder has to elide, strip images or snapshot — or answer cannot_fit;
 * sometimes fixed (2,500 / 6,000 / 200,000).
 *
 * After every step (test/support/model/real.ts), as far as HTTP shows them (docs/INVARIANTS.md):
 *   1. each conversation's event list (all pages) is the previous one plus a suffix, and the
 *      suffix is exactly what the command should append (nothing for the other conversations);
 *   2. every MessageAppended sits in the append (causation id) of its TurnCommitted, ids in order
 *      (a fork's copied path being the one other place messages appear);
 *   3. a tip move appends exactly one TipMoved;
 *   4. forks: a new id, fresh message ids, the id map covers exactly the copied path, live
 *      checkpoints on it remapped, the source's decisions naming the copied path listed in
 *      ForkedFrom.droppedCompactions (as the model predicts them); both sides then checked against
 *      their own model. Every CompactionApplied names only messages appended to its own stream
 *      before it, no decision id appears in two conversations (a fork's stream carries none of
 *      its source's), and each conversation's decisions are the ones the model recorded;
 *   5. checkpoints equal the model (after restarts too); a rewind lands exactly on the target;
 *   6. every context body passes the provider's checker (@arbor/context checkBody) and its
 *      estimate is within the target (hence the budget); the receipt's decision ids are the
 *      CompactionApplied events written with it, in order; the decisions applied are the
 *      conversation's own and lie on the active branch (a snapshot's range whole); a call over
 *      its target decided something; the report's estimate is what the ladder started from;
 *      cannot_fit (422) is accepted only with the numbers over the target and every rung tried;
 *      `compact` without a summarizer says so in the receipt;
 *   7. asked twice without change, the same body hash, nothing new decided (and the same prefix
 *      hash when the first call decided nothing); the audit reproduction (GET
 *      .../contexts/{id}, which renders pages from the source text, without any page cache)
 *      gives a matching hash, after every call with snapshot pages in force too; a restart is
 *      preceded by a snapshot-mode context of the heaviest live window, and after it the last
 *      context of each conversation (nothing written since), asked again, gives the same body,
 *      decides nothing, and has the same prefix hash when it decided nothing either (caches
 *      gone: pages rendered again from the source text);
 *   8. at every restart and at the end of a run: the read models rebuilt from the log equal the
 *      live ones, byte for byte;
 *   9. tenant B naming A's conversation and message ids gets exactly the answer of a missing id
 *      (two reads each step, every route of the contract at restarts and at the end);
 *  10. GET retry: the pending failure (after restarts too), else nothing_to_retry, never
 *      conversation_not_found; and an unknown conversation is conversation_not_found.
 * Plus the model itself: GET messages (root → tip), GET tree (nodes, parents, children, branch
 * points, tip), checkpoints, and the conversation view (tip, revision, lineage, counts, cut).
 *
 * Cost knobs: ARBOR_MODEL_RUNS (default 15), ARBOR_MODEL_COMMANDS (default 25); replay a failure
 * with ARBOR_MODEL_SEED and ARBOR_MODEL_PATH (fast-check prints both). ARBOR_MODEL_VERBOSE=1
 * prints the outcomes reached and how often each rung applied, per budget kind.
 */
import fc from 'fast-check';
import { commandArbitraries, seedCommands } from './support/model/commands';
import { addConv, newConv, newModel } from './support/model/model';
import { checkLogs, fullCheck, ladderTable, newReal, outcomes } from './support/model/real';
import { startHarness } from './support/harness';

const envInt = (name: string, fallback: number): number => {
  const v = Number(process.env[name]);
  return Number.isSafeInteger(v) && v > 0 ? v : fallback;
};

const RUNS = envInt('ARBOR_MODEL_RUNS', 15);
const COMMANDS = envInt('ARBOR_MODEL_COMMANDS', 25);
const SEED =
  process.env.ARBOR_MODEL_SEED === undefined ? undefined : Number(process.env.ARBOR_MODEL_SEED);
const PATH = process.env.ARBOR_MODEL_PATH;
/** A run of 25 commands takes one to two seconds; shrinking a failure takes a few dozen runs. */
const TIMEOUT = Math.max(150_000, RUNS * COMMANDS * 400);

describe('the conversation tree against a model (fc.commands)', () => {
  afterAll(() => {
    if (process.env.ARBOR_MODEL_VERBOSE) {
      const lines = [...outcomes].sort().map(([k, n]) => `${String(n).padStart(5)}  ${k}`);
      console.log(`outcomes:\n${lines.join('\n')}`);
      console.log(
        `ladder (rung applied, per context call answered or cannot_fit):\n${ladderTable()}`,
      );
    }
  });

  it(
    'random command sequences keep the app equal to the model and invariants 1–10 (docs/INVARIANTS.md)',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.commands(commandArbitraries(), { maxCommands: COMMANDS, size: 'max' }),
          async (cmds) => {
            // A fresh app and data directory per run: a run (and its shrinking) stands alone.
            const h = await startHarness();
            try {
              const real = await newReal(h);
              const model = newModel();
              const id = await real.a.start();
              addConv(model, newConv(id));
              await checkLogs(model, real, new Map([[id, () => undefined]]));
              for (const seed of seedCommands()) await seed.run(model, real);
              await fc.asyncModelRun(() => ({ model, real }), cmds);
              if (process.env.ARBOR_MODEL_VERBOSE) console.log(String(cmds));
              await fullCheck(model, real);
            } finally {
              await h.destroy();
            }
          },
        ),
        {
          numRuns: RUNS,
          // Stop (passing with the runs done, or failing with the smallest case found so far)
          // before jest's timeout would swallow the counterexample.
          interruptAfterTimeLimit: TIMEOUT - 20_000,
          ...(SEED !== undefined ? { seed: SEED } : {}),
          ...(PATH !== undefined ? { path: PATH } : {}),
        },
      );
    },
    TIMEOUT,
  );
});
