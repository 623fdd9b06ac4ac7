/** The runtime's own output inside a workspace (worktrees, exported transcripts, saved results), kept out of Glob, Grep and git. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { defaultWorktreeDir } from '../shared/workspace/worktree';

/** The folder the runtime keeps in a repository (`.subagents`, worktrees by default); Glob and Grep never descend into it. */
export const runtimeFolderName = defaultWorktreeDir.split('/')[0]!;

/** The `.gitignore` that marks a directory as runtime output: `*` ignores all it holds, for git and for Glob and Grep alike. */
export const runtimeOutputGitignore =
  '# Written by durable-subagents: its own output, ignored by git and by its Glob and Grep tools.\n*\n';

/** `mkdir -p` marking the first directory it creates as runtime output; returns it, if one was created. */
export async function makeOutputDirectory(directory: string): Promise<string | undefined> {
  const created = await fs.mkdir(directory, { recursive: true });
  if (created === undefined) return undefined;
  await fs
    .writeFile(path.join(created, '.gitignore'), runtimeOutputGitignore, { flag: 'wx' })
    .catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  return created;
}
