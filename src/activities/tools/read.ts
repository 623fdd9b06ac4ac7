/** Read: a text file, numbered like `cat -n`, streamed so that large files can be read in parts. */
import { ErrorType } from '../../shared/protocol/errors';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';
import { toolLimits } from '../../shared/tools/tool-definitions';
import type { ReadFileRecord } from '../../shared/tools/tools';
import { integerInput } from './input';
import { formatNumberedLine } from './numbered-lines';
import { createCheckpoint, resultsDirOf, type ToolEnv } from './tool-env';
import { ToolRefusal } from './tool-error';
import { defineTool } from './tool-runner';
import { displayPath, openWorkspace, resolveInWorkspace } from './workspace';

/** Input schema (the model is untrusted). */
export const readInput = z.strictObject({
  file_path: z.string().min(1),
  // 0 is read as 1: models often count from zero.
  offset: integerInput(0).optional(),
  limit: integerInput(1).optional(),
});

const chunkBytes = 64 * 1024;
/** Room kept for the footer when the output budget decides where to stop. */
const footerReserve = 300;

interface LineWindow {
  firstLine: number;
  lineLimit: number;
  /** Stop adding lines once the output would exceed this many characters. */
  charBudget: number;
}

interface ReadOutcome {
  lines: string[];
  totalLines: number;
  /** Last line that fit into the character budget, when it cut the window short. */
  stoppedByBudgetAfter?: number;
  record: ReadFileRecord;
  binary: boolean;
}

/** Runs the Read tool. */
export const runRead = defineTool('Read', readInput, async (input, call, env) => {
  const workspace = await openWorkspace(call.context, [resultsDirOf(env)]);
  const realPath = await resolveInWorkspace(workspace, input.file_path, 'read');
  const stat = await fs.stat(realPath).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') {
      throw new ToolRefusal(
        ErrorType.FileNotFound,
        `${input.file_path} does not exist (resolved to ${realPath}; working directory ${workspace.cwd}). Use Glob to find the right path.`,
      );
    }
    throw error;
  });
  if (stat.isDirectory()) {
    throw new ToolRefusal(
      ErrorType.NotAFile,
      `${realPath} is a directory. Use Glob (e.g. pattern "*" with path "${input.file_path}") to list its files.`,
    );
  }
  if (!stat.isFile()) throw new ToolRefusal(ErrorType.NotAFile, `${realPath} is not a regular file.`);
  const ranged = input.offset !== undefined || input.limit !== undefined;
  if (!ranged && stat.size > toolLimits.readMaxBytesWithoutRange) {
    throw new ToolRefusal(
      ErrorType.FileTooLarge,
      `${realPath} is ${stat.size} bytes, more than the ${toolLimits.readMaxBytesWithoutRange / 1024} KiB Read returns at once. ` +
        'Read it in parts with offset and limit (e.g. offset: 1, limit: 500), or search it with Grep.',
    );
  }
  const maxResultChars = call.context.maxResultChars ?? toolLimits.defaultMaxResultChars;
  const window: LineWindow = {
    firstLine: Math.max(1, input.offset ?? 1),
    lineLimit: input.limit ?? toolLimits.readDefaultLines,
    charBudget: Math.max(1, maxResultChars - footerReserve),
  };
  const outcome = await readLines(realPath, window, env);
  if (outcome.binary) {
    throw new ToolRefusal(
      ErrorType.BinaryFile,
      `${realPath} looks like a binary file (it contains NUL bytes); Read only shows text files.`,
    );
  }
  const shown = displayPath(workspace, realPath);
  return { content: describe(shown, window, outcome), isError: false, readFiles: [outcome.record] };
});

function describe(shown: string, window: LineWindow, outcome: ReadOutcome): string {
  const { lines, totalLines } = outcome;
  if (totalLines === 0) return `${shown} exists but is empty (0 bytes).`;
  if (lines.length === 0) {
    return `${shown} has ${totalLines} lines; offset ${window.firstLine} is past the end. Use an offset between 1 and ${totalLines}.`;
  }
  const lastShown = window.firstLine + lines.length - 1;
  let footer = '';
  if (outcome.stoppedByBudgetAfter !== undefined) {
    footer = `\n\n(Output stopped after line ${lastShown} of ${totalLines} to stay within the result size limit; use offset=${lastShown + 1} to read on.)`;
  } else if (lastShown < totalLines || window.firstLine > 1) {
    const more = lastShown < totalLines ? ` Use offset=${lastShown + 1} to read more.` : '';
    footer = `\n\n(Showing lines ${window.firstLine}-${lastShown} of ${totalLines}.${more})`;
  }
  return lines.join('\n') + footer;
}

/** Streams the file once: hashes all of it, counts its lines and keeps only the requested window. */
async function readLines(realPath: string, window: LineWindow, env: ToolEnv): Promise<ReadOutcome> {
  const checkpoint = createCheckpoint(env);
  const handle = await fs.open(realPath, 'r');
  try {
    const stat = await handle.stat();
    const hash = createHash('sha256');
    const decoder = new StringDecoder('utf8');
    const lines: string[] = [];
    const lastWanted = window.firstLine + window.lineLimit - 1;
    let outputChars = 0;
    let stoppedByBudgetAfter: number | undefined;
    let lineNumber = 0;
    // The current unfinished line: only its first maxLineChars + 1 characters are kept.
    let pending = '';
    let pendingLength = 0;
    let size = 0;
    let position = 0;

    const finishLine = (): void => {
      lineNumber += 1;
      if (lineNumber < window.firstLine || lineNumber > lastWanted || stoppedByBudgetAfter !== undefined) return;
      const text = pending.endsWith('\r') && pendingLength === pending.length ? pending.slice(0, -1) : pending;
      const formatted = formatNumberedLine(lineNumber, text, pendingLength);
      if (lines.length > 0 && outputChars + formatted.length + 1 > window.charBudget) {
        stoppedByBudgetAfter = lineNumber - 1;
        return;
      }
      lines.push(formatted);
      outputChars += formatted.length + 1;
    };
    const append = (text: string): void => {
      const room = toolLimits.maxLineChars + 1 - pending.length;
      if (room > 0) pending += text.slice(0, room);
      pendingLength += text.length;
    };

    const buffer = Buffer.alloc(chunkBytes);
    for (;;) {
      checkpoint();
      const { bytesRead } = await handle.read(buffer, 0, chunkBytes, position);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      if (position === 0 && chunk.subarray(0, 8192).includes(0)) {
        return { lines: [], totalLines: 0, record: recordOfStream(realPath, stat.mtimeMs, 0, ''), binary: true };
      }
      position += bytesRead;
      size += bytesRead;
      hash.update(chunk);
      const text = decoder.write(chunk);
      let start = 0;
      for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
        append(text.slice(start, newline));
        finishLine();
        pending = '';
        pendingLength = 0;
        start = newline + 1;
      }
      append(text.slice(start));
    }
    append(decoder.end());
    if (pendingLength > 0) finishLine();
    return {
      lines,
      totalLines: lineNumber,
      ...(stoppedByBudgetAfter !== undefined ? { stoppedByBudgetAfter } : {}),
      record: recordOfStream(realPath, stat.mtimeMs, size, hash.digest('hex')),
      binary: false,
    };
  } finally {
    await handle.close();
  }
}

function recordOfStream(realPath: string, mtimeMs: number, size: number, digest: string): ReadFileRecord {
  return { path: realPath, mtimeMs, size, sha256: digest };
}
