/** Write and Edit's one way to change a file: never through a hard link that may reach outside the workspace. */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ErrorType } from '../../shared/protocol/errors';
import { ToolRefusal } from './tool-error';

/** How hard-linked files are written. */
export interface FileWriteOptions {
  /** Write a file with more than one link through a fresh inode instead of refusing (SUBAGENTS_ALLOW_HARDLINK_WRITES=1). */
  allowHardLinkWrites?: boolean;
}

/** Reads SUBAGENTS_ALLOW_HARDLINK_WRITES (`1` or `true` turns it on). */
export function fileWriteOptionsFromEnv(env: NodeJS.ProcessEnv): FileWriteOptions {
  const value = env.SUBAGENTS_ALLOW_HARDLINK_WRITES?.trim().toLowerCase();
  return { allowHardLinkWrites: value === '1' || value === 'true' };
}

// O_NOFOLLOW: a symlink swapped in after the path was resolved is refused; O_NONBLOCK: a FIFO fails instead of hanging.
const openFlags = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Writes `content`, checking the link count on the opened descriptor so a swapped-in file cannot slip by. */
export async function writeWorkspaceFile(
  realPath: string,
  content: Buffer,
  options: FileWriteOptions = {},
): Promise<void> {
  const handle = await fs.open(realPath, openFlags, 0o666);
  let linked: { mode: number } | undefined;
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new ToolRefusal(ErrorType.NotAFile, `${realPath} is not a regular file.`);
    if (stat.nlink > 1) {
      if (!options.allowHardLinkWrites) throw hardLinkRefusal(realPath, stat.nlink);
      linked = { mode: stat.mode };
    } else {
      await handle.truncate(0);
      await handle.writeFile(content);
    }
  } finally {
    await handle.close();
  }
  if (linked) await replaceWithFreshInode(realPath, content, linked.mode);
}

/** A temporary file beside the target, renamed over it: the other links keep the old inode and its content. */
async function replaceWithFreshInode(realPath: string, content: Buffer, mode: number): Promise<void> {
  const temporary = path.join(
    path.dirname(realPath),
    `.${path.basename(realPath)}.${randomBytes(6).toString('hex')}.subagents-tmp`,
  );
  try {
    await fs.writeFile(temporary, content, { flag: 'wx', mode: mode & 0o7777 });
    await fs.rename(temporary, realPath);
  } catch (error) {
    await fs.rm(temporary, { force: true });
    throw error;
  }
}

function hardLinkRefusal(realPath: string, links: number): ToolRefusal {
  return new ToolRefusal(
    ErrorType.HardLinkedFile,
    `${realPath} has ${links} hard links, so writing it would also change the same file under its other names, which may be outside the workspace. ` +
      `Nothing was written. To change only this copy, break the link first (Bash: \`cp -p FILE FILE.copy && mv FILE.copy FILE\`), ` +
      'or ask the operator to set SUBAGENTS_ALLOW_HARDLINK_WRITES=1 on the worker (docs/configuration.md).',
  );
}
