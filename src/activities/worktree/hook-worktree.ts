/** The `adoptHookWorktree` activity: the directory a WorktreeCreate hook made, checked where the files are. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ErrorType } from '../../shared/protocol/errors';
import type { AdoptHookWorktreeInput, WorktreeInfo } from '../../shared/workspace/worktree';
import { hookWorktreeAdvice, hookWorktreePathProblem } from '../../shared/workspace/hook-worktree';
import { worktreeFailure } from '../../worktree/failures';

function refused(input: AdoptHookWorktreeInput, why: string) {
  return worktreeFailure(
    ErrorType.WorktreeCreateFailed,
    `the WorktreeCreate hook ${input.hook} gave no usable path: ${why}. ${hookWorktreeAdvice}`,
  );
}

async function realHome(): Promise<string> {
  return fs.realpath(os.homedir()).catch(() => path.resolve(os.homedir()));
}

/** Why the directory at `printed` cannot be an agent's worktree, or its real path. */
export async function checkHookWorktree(printed: string): Promise<{ path: string } | { problem: string }> {
  const problem = hookWorktreePathProblem(printed);
  if (problem) return { problem };
  let real: string;
  try {
    real = await fs.realpath(printed);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: `${printed} does not exist on this worker (${code ?? 'unreadable'})` };
  }
  const stat = await fs.stat(real);
  if (!stat.isDirectory()) return { problem: `${printed} is not a directory` };
  if (real === path.parse(real).root) return { problem: `${printed} is the file system's root` };
  // The agent's files would be the whole home, and WorktreeRemove hooks would be handed it to remove.
  if (real === (await realHome())) return { problem: `${printed} is the home directory itself` };
  return { path: real };
}

/** Describes the hook's directory as the agent's worktree (its cwd and confinement root); fails without retry when unusable. */
export async function adoptHookWorktree(input: AdoptHookWorktreeInput): Promise<WorktreeInfo> {
  const checked = await checkHookWorktree(input.printed);
  if ('problem' in checked) throw refused(input, checked.problem);
  return {
    repoRoot: input.cwd,
    path: checked.path,
    branch: '',
    baseCommit: '',
    cwd: checked.path,
    mapping: { from: input.workspaceRoot, to: checked.path },
    madeBy: 'hook',
  };
}
