// Runs in every test process (vitest setupFiles). On Ctrl-C vitest's main process exits at once; a test process
// would run on, its Temporal Runtime having taken SIGINT for a graceful worker shutdown, and so would one whose
// main process was killed. It exits instead, and its `exit` handlers end the processes it started
// (test/helpers/end-with-this-process.ts).
const installed = Symbol.for('durable-subagents.test.fork-setup');
const state = globalThis as { [installed]?: true };
if (!state[installed]) {
  state[installed] = true;
  process.once('SIGINT', () => process.exit(130));
  // The IPC channel to vitest's main process closed: the run is over.
  process.once('disconnect', () => process.exit(130));
}
