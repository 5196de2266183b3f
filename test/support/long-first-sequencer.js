// Jest orders suites by their last run's duration, longest first, so that no long suite starts
// last on a free worker while the other waits. With no timings yet (a clean clone, CI) it orders
// by file size, and the longest suites are small files: scaled-wire.e2e-spec.ts (39 lines) runs
// two other suites over the EventStoreDB wire and would start among the last. These go first
// then, the longest first (rough seconds on a 2-core machine; only their order matters).
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const LONG = {
  'test/scaled-wire.e2e-spec.ts': 60,
  'test/tree-model.e2e-spec.ts': 50,
  'test/bin.e2e-spec.ts': 46,
  'test/console.e2e-spec.ts': 32,
  'test/erasure-scaled.e2e-spec.ts': 31,
  'test/cli.e2e-spec.ts': 25,
  'test/cluster.e2e-spec.ts': 22,
  'test/scaled.e2e-spec.ts': 20,
  'test/scaled-routes.e2e-spec.ts': 20,
};

class LongFirstSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const estimate = (t) => LONG[path.relative(t.context.config.rootDir, t.path)];
    const first = sorted
      .filter((t) => t.duration == null && estimate(t) !== undefined)
      .sort((a, b) => estimate(b) - estimate(a));
    return [...first, ...sorted.filter((t) => !first.includes(t))];
  }
}
module.exports = LongFirstSequencer;
