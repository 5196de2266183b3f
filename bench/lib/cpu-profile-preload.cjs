/* global process, require */
/* eslint-disable @typescript-eslint/no-require-imports -- preloaded with `node -r`: CommonJS */
// Preloaded (NODE_OPTIONS=-r …) into a process bench:scale profiles: `--cpu-prof` is not allowed
// in NODE_OPTIONS, so the V8 profiler is started through node:inspector here; on SIGUSR2 the
// profile is written to $ARBOR_CPU_PROFILE_DIR/<pid>.cpuprofile and the process exits.
const fs = require('node:fs');
const path = require('node:path');
const inspector = require('node:inspector');

const dir = process.env.ARBOR_CPU_PROFILE_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable', () => session.post('Profiler.start'));
  process.once('SIGUSR2', () => {
    session.post('Profiler.stop', (err, result) => {
      if (!err) {
        fs.writeFileSync(
          path.join(dir, `${process.pid}.cpuprofile`),
          JSON.stringify(result.profile),
        );
      }
      process.exit(0);
    });
  });
}
