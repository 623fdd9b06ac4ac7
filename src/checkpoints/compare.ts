/** Comparing recorded trees: what a workspace or a checkpoint changed, as FileChange lists. */
import type { FileChange } from '../shared/workspace/checkpoints';
import { runGit, type GitContext } from './git-command';

/** FileChanges of `git diff-tree -r --name-status -z` output (no rename detection: a rename is a delete and an add). */
export function parseNameStatus(output: string): FileChange[] {
  const fields = output.split('\0');
  const changes: FileChange[] = [];
  for (let index = 0; index + 1 < fields.length; index += 2) {
    const status = fields[index] ?? '';
    const file = fields[index + 1] ?? '';
    if (status === '' || file === '') continue;
    changes.push({ path: file, status: status === 'A' ? 'added' : status === 'D' ? 'deleted' : 'modified' });
  }
  return changes;
}

/** The files that differ from tree-ish `from` to tree-ish `to`, in git's path order. */
export async function diffTrees(context: GitContext, from: string, to: string): Promise<FileChange[]> {
  if (from === to) return [];
  return parseNameStatus(
    await runGit(context, ['diff-tree', '-r', '--name-status', '-z', '--no-renames', from, to, '--']),
  );
}
