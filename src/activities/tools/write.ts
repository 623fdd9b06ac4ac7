/** Write: create a file, or overwrite one the agent has read and that has not changed since. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { writeWorkspaceFile } from './file-write';
import {
  changedSinceReadRefusal,
  isUnchangedSince,
  readSnapshot,
  recordAfterWrite,
  recordOf,
  requireReadRecord,
} from './file-record';
import { defineTool } from './tool-runner';
import { displayPath, openWorkspace, resolveInWorkspace } from './workspace';

/** Input schema (the model is untrusted). */
export const writeInput = z.strictObject({
  file_path: z.string().min(1),
  content: z.string(),
});

/** Runs the Write tool. */
export const runWrite = defineTool('Write', writeInput, async (input, call, env) => {
  const workspace = await openWorkspace(call.context);
  const realPath = await resolveInWorkspace(workspace, input.file_path, 'write');
  const content = Buffer.from(input.content, 'utf8');
  const shown = displayPath(workspace, realPath);
  const lineCount =
    input.content === '' ? 0 : input.content.split('\n').length - (input.content.endsWith('\n') ? 1 : 0);
  const lines = `${lineCount} ${lineCount === 1 ? 'line' : 'lines'}`;
  const existing = await readSnapshot(realPath);
  if (existing) {
    // Same bytes already there (e.g. a retry after a crash that followed the write): nothing to check or do.
    if (existing.content.equals(content)) {
      return {
        content: `${shown} already has this content (${lines}); nothing changed.`,
        isError: false,
        readFiles: [recordOf(realPath, existing.stat, existing.content)],
      };
    }
    const record = requireReadRecord(call.readFileState, realPath, 'overwriting');
    if (!isUnchangedSince(record, existing)) throw changedSinceReadRefusal(realPath);
  } else {
    await fs.mkdir(path.dirname(realPath), { recursive: true });
  }
  await writeWorkspaceFile(realPath, content, env);
  return {
    content: `${existing ? 'Overwrote' : 'Created'} ${shown} (${lines}, ${content.length} bytes).`,
    isError: false,
    readFiles: [await recordAfterWrite(realPath, content)],
  };
});
