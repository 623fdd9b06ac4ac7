// Reading a script file safely: inside the allowed directories after symlinks, a regular file, under the size limit.
import { constants } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { isInside } from '../paths';
import { readCappedText } from '../capped-file';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import { scriptLimits } from '../../shared/scripts/script-run';

/** A directory's real location (symlinks resolved), or its normalised absolute form when it does not exist. */
export async function realDirectory(directory: string): Promise<string> {
  const absolute = path.resolve(directory);
  return fs.realpath(absolute).catch(() => absolute);
}

/** Where script files may really be (after symlinks): those directories, or anywhere for a person's own command. */
export type ScriptFileRoots = readonly string[] | 'anywhere';

/** A file's text, or why it cannot be read; `shown` is the path as the caller gave it (the target of a symlink is never told). */
export async function readScriptFile(
  file: string,
  allowedRoots: ScriptFileRoots,
  shown: string = file,
): Promise<{ ok: true; source: string; realPath: string } | { ok: false; error: string }> {
  let realPath: string;
  try {
    realPath = await fs.realpath(file);
  } catch {
    return { ok: false, error: errorText(ErrorType.FileNotFound, `the script file ${shown} does not exist.`) };
  }
  if (allowedRoots !== 'anywhere' && !allowedRoots.some((root) => isInside(realPath, root)))
    return {
      ok: false,
      error: errorText(
        ErrorType.PathOutsideWorkspace,
        `the script file ${shown} is (or links to a file) outside the workspace and the user's workflows directory; ` +
          'copy the script into the workspace or into ~/.claude/workflows.',
      ),
    };
  const stats = await fs.stat(realPath).catch(() => undefined);
  if (!stats?.isFile())
    return { ok: false, error: errorText(ErrorType.NotAFile, `${shown} is not a regular file; give a script file.`) };
  const tooLarge = (size: number) => ({
    ok: false as const,
    error: errorText(
      ErrorType.FileTooLarge,
      `the script file ${shown} is ${size} bytes; scripts are at most ${scriptLimits.maxScriptBytes} bytes. ` +
        'Move data into `args` or split the script.',
    ),
  });
  if (stats.size > scriptLimits.maxScriptBytes) return tooLarge(stats.size);
  // Non-blocking and no-follow: a FIFO swapped in cannot hang the read, a symlink swapped in is not followed.
  let handle: FileHandle;
  try {
    handle = await fs.open(realPath, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return {
      ok: false,
      error: errorText(
        ErrorType.FileNotFound,
        `the script file ${shown} cannot be read (${code}); check it and try again.`,
      ),
    };
  }
  try {
    const read = await readCappedText(handle, scriptLimits.maxScriptBytes);
    if (read.type === 'not-a-file')
      return { ok: false, error: errorText(ErrorType.NotAFile, `${shown} is not a regular file; give a script file.`) };
    if (read.type === 'too-large') return tooLarge(read.bytes);
    return { ok: true, source: read.text, realPath };
  } finally {
    await handle.close();
  }
}
