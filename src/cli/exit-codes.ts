/** Exit codes of the `subagents` CLI (documented in docs/cli.md). */
export const ExitCode = {
  ok: 0,
  /** The agent finished but not successfully (failed, max_turns, refused, cancelled). */
  agentUnsuccessful: 1,
  /** Bad arguments or input: the message says what to fix. */
  usage: 2,
  /** Cannot reach Temporal, the model API, or another required service. */
  unavailable: 3,
  /** No agent with that id. */
  notFound: 4,
  /** Stopped by SIGINT. */
  interrupted: 130,
} as const;

/** An error whose message is for the user, with the exit code to use. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = ExitCode.usage,
  ) {
    super(message);
  }
}
