import { ApplicationFailure } from '@temporalio/common';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { listSubagentWorktrees, pruneSubagentWorktrees } from '../../worktree/list';
import { ErrorType } from '../../shared/protocol/errors';
import type { SubagentWorktreeEntry, SubagentWorktreeList } from '../../shared/workspace/worktree';
import { ExitCode } from '../exit-codes';
import { formatTable } from '../table';

const usage = 'usage: subagents worktrees [--dir DIR] [--prune] [--json]';

function displayPath(file: string, root: string): string {
  const relative = path.relative(root, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

function state(worktree: SubagentWorktreeEntry): string {
  const labels: string[] = [];
  if (!worktree.exists) labels.push('missing');
  if (worktree.locked) labels.push('locked (agent running?)');
  labels.push(worktree.mergedOrEmpty ? 'merged-or-empty' : 'has work');
  return labels.join(', ');
}

function formatList(list: SubagentWorktreeList): string[] {
  if (list.worktrees.length === 0) return [`No subagent worktrees in ${list.repoRoot}.`];
  const rows = list.worktrees.map((worktree) => [
    displayPath(worktree.path, list.repoRoot),
    worktree.branch,
    String(worktree.changedFiles),
    String(worktree.commitsAhead),
    state(worktree),
  ]);
  const lines = formatTable([['PATH', 'BRANCH', 'CHANGED', 'AHEAD', 'STATE'], ...rows]);
  if (list.worktrees.some((worktree) => worktree.locked)) {
    lines.push(
      '',
      'Locked worktrees belong to running agents and are never pruned; if none is running, unlock with: git worktree unlock <path>',
    );
  }
  return lines;
}

async function run(dir: string, prune: boolean, json: boolean): Promise<void> {
  if (!prune) {
    const list = await listSubagentWorktrees(dir);
    console.log(json ? JSON.stringify(list, null, 2) : formatList(list).join('\n'));
    return;
  }
  const result = await pruneSubagentWorktrees(dir);
  if (json) {
    console.log(JSON.stringify(result, null, 2));
    return;
  }
  const lines =
    result.removed.length === 0
      ? ['Nothing to prune: no unlocked subagent worktree is merged or empty.']
      : result.removed.map(
          (worktree) => `Removed ${displayPath(worktree.path, result.repoRoot)} and branch ${worktree.branch}`,
        );
  console.log([...lines, '', ...formatList(result)].join('\n'));
}

/** `subagents worktrees`: lists kept subagent worktrees; `--prune` removes the merged or empty ones. */
export async function worktreesCommand(argv: string[]): Promise<number> {
  let values: { dir?: string; prune?: boolean; json?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        dir: { type: 'string' },
        prune: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
      },
      allowPositionals: false,
    }));
  } catch (error) {
    console.error(`subagents worktrees: ${(error as Error).message}\n${usage}`);
    return ExitCode.usage;
  }
  const dir = path.resolve(values.dir ?? process.cwd());
  try {
    await run(dir, values.prune ?? false, values.json ?? false);
  } catch (error) {
    if (error instanceof ApplicationFailure && error.type === ErrorType.NotAGitRepository) {
      console.error(
        `subagents worktrees: ${dir} is not inside a git repository (use --dir to point at one).\n${usage}`,
      );
      return ExitCode.usage;
    }
    throw error;
  }
  return ExitCode.ok;
}
