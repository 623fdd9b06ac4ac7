/** Worktrees made by WorktreeCreate hooks (docs/worktrees.md, "Worktrees made by hooks"): what the hooks' answers mean. */
import type { CombinedVerdict } from '../policy/hook-outcome';
import { ErrorType, errorText } from '../protocol/errors';

/** The path the hooks gave (still to be checked on the worker), or why the agent gets no worktree. */
export type HookWorktreeChoice = { type: 'path'; path: string; hook: string } | { type: 'failed'; error: string };

/** What to do about a failed WorktreeCreate hook, said in every such error. */
export const hookWorktreeAdvice =
  'A WorktreeCreate hook replaces git worktree creation: it must exit 0 and print only the absolute path of the ' +
  'directory it made on stdout (anything else on stderr; an http hook answers hookSpecificOutput.worktreePath). ' +
  'Fix the hook, or remove it to let the runtime make a git worktree.';

const clip = (text: string, max = 200) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** The error an agent fails with when its WorktreeCreate hooks made no usable worktree. */
export function hookWorktreeError(agentId: string, why: string): string {
  return errorText(
    ErrorType.WorktreeCreateFailed,
    `agent ${agentId} got no worktree, so it did not run: ${why}. ${hookWorktreeAdvice}`,
  );
}

/** Why a printed path cannot be a worktree, judged from its text alone (the worker then checks the directory). */
export function hookWorktreePathProblem(printed: string): string | undefined {
  if (printed === '') return 'it printed no path';
  if (printed.includes('\0')) return 'the path it printed holds a NUL character';
  if (/[\r\n]/.test(printed))
    return `it printed more than one line (${JSON.stringify(clip(printed))}); print only the path`;
  if (!printed.startsWith('/')) return `${JSON.stringify(clip(printed))} is not an absolute path`;
  const segments: string[] = [];
  for (const segment of printed.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  if (segments.length === 0) return `${JSON.stringify(clip(printed))} is the file system's root`;
  return undefined;
}

/** What one event's WorktreeCreate verdict means: any failure fails; the hooks that gave a path must agree on it. */
export function hookWorktreeChoice(agentId: string, verdict: CombinedVerdict | undefined): HookWorktreeChoice {
  const failed = (why: string): HookWorktreeChoice => ({ type: 'failed', error: hookWorktreeError(agentId, why) });
  if (verdict?.failures?.length) return failed(`the WorktreeCreate hook failed: ${verdict.failures.join('; ')}`);
  if (verdict?.blocked) return failed(`a WorktreeCreate hook blocked it: ${verdict.reason ?? 'no reason given'}`);
  const given = verdict?.worktreePaths ?? [];
  const first = given[0];
  if (!first) return failed('no WorktreeCreate hook gave a path (a command hook prints it on stdout)');
  const other = given.find((entry) => entry.path !== first.path);
  if (other)
    return failed(
      `the WorktreeCreate hooks gave different paths: ${first.command} gave ${JSON.stringify(clip(first.path))}, ` +
        `${other.command} gave ${JSON.stringify(clip(other.path))}`,
    );
  const problem = hookWorktreePathProblem(first.path);
  if (problem) return failed(`the WorktreeCreate hook ${first.command} gave no usable path: ${problem}`);
  return { type: 'path', path: first.path, hook: first.command };
}
