/* global process */
// Preloaded into a profiled server: SIGUSR2 exits normally, so --cpu-prof writes its profile
// (a signal death, as after SIGTERM through Nest's shutdown hooks, would skip it).
process.once('SIGUSR2', () => process.exit(0));
