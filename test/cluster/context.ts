import type { ClusterEnv } from './env';

/** What the checks share: the env, the roots whose histories the replay check replays, and figures for the JSON line. */
export interface SuiteContext {
  env: ClusterEnv;
  /** Unique per run: the database outlives runs, so agent ids must not repeat. */
  tag: string;
  log: (line: string) => void;
  roots: { placement: string[]; all: string[] };
  figures: Record<string, number | string>;
}

/** One named check: throws with what went wrong, or returns a short summary for the table. */
export interface Check {
  name: string;
  run(context: SuiteContext): Promise<string>;
}

export class CheckFailed extends Error {
  override name = 'CheckFailed';
}

/** Throws CheckFailed listing the problems, if there are any. */
export function expectNone(problems: string[], what: string): void {
  if (problems.length > 0)
    throw new CheckFailed(
      `${what}: ${problems.slice(0, 6).join('; ')}${problems.length > 6 ? ` (and ${problems.length - 6} more)` : ''}`,
    );
}
