/** Running git for the checkpoint store, with the store's own environment. */
import { launch } from './launcher';

/** Where a git command runs and what it works on (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE…). */
export interface GitContext {
  cwd: string;
  env: Record<string, string>;
}

/** A git command that exited non-zero: its arguments, exit code and stderr. */
export class GitCommandError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args.join(' ')} exited with ${exitCode ?? 'a signal'}: ${stderr.trim() || '(no message)'}`);
    this.name = 'GitCommandError';
  }
}

// Variables that would point git at another repository, index or object store than the one we name.
const locationVariables = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
  'GIT_QUARANTINE_PATH',
];

/** The worker's environment without git location variables (a worker started from a git hook has GIT_INDEX_FILE set). */
export function baseGitEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const clean: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && !locationVariables.includes(key)) clean[key] = value;
  }
  // Messages in English so "not a git repository" can be recognised; no prompts from a credential helper.
  clean.LC_ALL = 'C';
  clean.GIT_TERMINAL_PROMPT = '0';
  return clean;
}

/** Runs git (through the launcher: ./launcher.ts) and returns its stdout; rejects with GitCommandError on a non-zero exit. */
export async function runGit(context: GitContext, args: readonly string[], input?: string): Promise<string> {
  const result = await launch({
    cwd: context.cwd,
    env: context.env,
    script: 'git "$@"',
    args,
    ...(input !== undefined ? { input } : {}),
  });
  if (result.code !== 0) throw new GitCommandError(args, result.code, result.stderr);
  return result.stdout;
}
