/**
 * Model-based test of the conversation tree (fast-check `fc.commands` + `fc.asyncModelRun`).
 *
 * Random sequences of commands drive the real app (real SQLite files in a temp dir, over HTTP)
 * and a small independent model (test/support/model/model.ts: messages with parents, tip,
 * checkpoints label → target/status, forks with their id maps, the pending failure, cuts,
 * compaction counts). Commands: start, commit a turn (on the tip, from an earlier turn end = a new
 * branch, on a mid-turn message = refused; plain or with tool loops), retry a turn by turnId
 * (replay, or 409 for other content), move the tip, fork (at the tip or an earlier turn end; later
 * commands run on forks too), set a checkpoint (refusals included), rewind (dropped → 409),
 * resume (dropped checkpoints predicted by the model), record a failure, GET retry, ask for a
 * context (4 providers, auto / shake / snapshot / compact, small and large budgets; sometimes twice),
 * and restart the app on the same data directory.
 *
 * After every step (test/support/model/real.ts), as far as HTTP shows them (SPEC §5):
 *   1. each conversation's event list (all pages) is the previous one plus a suffix, and the
 *      suffix is exactly what the command should append (nothing for the other conversations);
 *   2. every MessageAppended sits in the append (causation id) of its TurnCommitted, ids in order
 *      (a fork's copied path being the one other place messages appear);
 *   3. a tip move appends exactly one TipMoved;
 *   4. forks: a new id, fresh message ids, the id map covers exactly the copied path, live
 *      checkpoints on it remapped; both sides then checked against their own model;
 *   5. checkpoints equal the model (after restarts too); a rewind lands exactly on the target;
 *   6. every context body passes the provider's checker (@arbor/context checkBody) and its
 *      estimate is within the budget; `compact` without a summarizer says so in the receipt;
 *   7. asked twice without change, the same body hash, nothing new decided, and the audit
 *      reproduction (GET .../contexts/{id}) re-renders it with a matching hash;
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
 * with ARBOR_MODEL_SEED and ARBOR_MODEL_PATH (fast-check prints both).
 */
import fc from 'fast-check';
import { commandArbitraries, seedCommands } from './support/model/commands';
import { addConv, newConv, newModel } from './support/model/model';
import { checkLogs, fullCheck, newReal, outcomes } from './support/model/real';
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
/** A run of 25 commands takes about a second; shrinking a failure takes a few dozen runs. */
const TIMEOUT = Math.max(150_000, RUNS * COMMANDS * 400);

describe('the conversation tree against a model (fc.commands)', () => {
  afterAll(() => {
    if (process.env.ARBOR_MODEL_VERBOSE) {
      const lines = [...outcomes].sort().map(([k, n]) => `${String(n).padStart(5)}  ${k}`);
      console.log(`outcomes:\n${lines.join('\n')}`);
    }
  });

  it(
    'random command sequences keep the app equal to the model and SPEC §5 invariants 1–10',
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
