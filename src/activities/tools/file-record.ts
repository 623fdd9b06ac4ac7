/** Read-file state: what an agent last saw of a file, and whether the file still matches it. */
import { ErrorType } from '../../shared/protocol/errors';
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import type { ReadFileRecord, ReadFileState } from '../../shared/tools/tools';
import { ToolRefusal } from './tool-error';

export function sha256(content: Buffer | string): string {
  return createHash('sha256').update(content).digest('hex');
}

/** A file's content and the stat taken from the same open handle. */
export interface FileSnapshot {
  path: string;
  content: Buffer;
  stat: Stats;
}

/** Reads a whole file; undefined when it does not exist. */
export async function readSnapshot(realPath: string): Promise<FileSnapshot | undefined> {
  const handle = await fs.open(realPath, 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!handle) return undefined;
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) throw new ToolRefusal(ErrorType.NotAFile, `${realPath} is a directory, not a file.`);
    const content = await handle.readFile();
    return { path: realPath, content, stat };
  } finally {
    await handle.close();
  }
}

/** The record for content just read or written at `realPath`. */
export function recordOf(realPath: string, stat: Stats, content: Buffer): ReadFileRecord {
  return { path: realPath, mtimeMs: stat.mtimeMs, size: content.length, sha256: sha256(content) };
}

/** The record after writing `content`: stat is taken after the write. */
export async function recordAfterWrite(realPath: string, content: Buffer): Promise<ReadFileRecord> {
  return recordOf(realPath, await fs.stat(realPath), content);
}

/** The agent's record of this file; refuses when it never read it or the record is stale. */
export function requireReadRecord(state: ReadFileState | undefined, realPath: string, verb: string): ReadFileRecord {
  const record = state?.[realPath];
  if (!record) throw new ToolRefusal(ErrorType.FileNotRead, `Read ${realPath} before ${verb} it.`);
  if (record.stale) {
    throw new ToolRefusal(
      ErrorType.FileNotRead,
      `your earlier read of ${realPath} is no longer valid here; Read ${realPath} again before ${verb} it.`,
    );
  }
  return record;
}

/** Unchanged when mtime and size match, or (after a touch or copy) when the content hash matches. */
export function isUnchangedSince(record: ReadFileRecord, snapshot: FileSnapshot): boolean {
  if (record.mtimeMs === snapshot.stat.mtimeMs && record.size === snapshot.content.length) return true;
  return record.size === snapshot.content.length && record.sha256 === sha256(snapshot.content);
}

export function changedSinceReadRefusal(realPath: string): ToolRefusal {
  return new ToolRefusal(
    ErrorType.FileChangedSinceRead,
    `${realPath} was modified since you last read it (by someone else or a command); re-read it with Read, then try again.`,
  );
}

/** True when the bytes contain a NUL in the first 8 KiB: treated as binary. */
export function looksBinary(content: Buffer): boolean {
  return content.subarray(0, 8192).includes(0);
}
