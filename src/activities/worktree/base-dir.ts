/** Making sure the directory that holds worktrees exists and is writable. */
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import { ErrorType } from '../../shared/protocol/errors';
import { makeOutputDirectory } from '../../project/runtime-output';
import { worktreeFailure } from '../../worktree/failures';

function reason(code: string | undefined): string {
  switch (code) {
    case 'ENOTDIR':
      return 'part of that path is a file, not a directory';
    case 'EEXIST':
      return 'it exists and is not a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'the file system is read-only';
    default:
      return code ?? 'unknown error';
  }
}

function notWritable(directory: string, error: unknown) {
  return worktreeFailure(
    ErrorType.WorktreeDirNotWritable,
    `cannot create worktrees in ${directory} (${reason((error as NodeJS.ErrnoException).code)}). ` +
      'Make that directory writable, or point the worktree directory (baseDir) somewhere writable, or run without isolation.',
  );
}

/** Creates the directory if needed (marked as runtime output, so Glob and Grep skip it) and returns its real path; WorktreeDirNotWritable otherwise. */
export async function prepareBaseDir(directory: string): Promise<string> {
  try {
    await makeOutputDirectory(directory);
    if (!(await fs.stat(directory)).isDirectory())
      throw Object.assign(new Error('not a directory'), { code: 'EEXIST' });
    await fs.access(directory, constants.W_OK | constants.X_OK);
    return await fs.realpath(directory);
  } catch (error) {
    throw notWritable(directory, error);
  }
}
