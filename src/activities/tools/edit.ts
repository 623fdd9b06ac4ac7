/** Edit: exact string replacement in a file the agent has read and that has not changed since. */
import { ErrorType } from '../../shared/protocol/errors';
import { z } from 'zod';
import { applyEdit, countOccurrences, isEditAlreadyApplied, withCrlf, type EditSpec } from './edit-apply';
import {
  changedSinceReadRefusal,
  isUnchangedSince,
  looksBinary,
  readSnapshot,
  recordAfterWrite,
  recordOf,
  requireReadRecord,
} from './file-record';
import { writeWorkspaceFile } from './file-write';
import { booleanInput } from './input';
import { formatNumberedLine } from './numbered-lines';
import { ToolRefusal } from './tool-error';
import { defineTool } from './tool-runner';
import { displayPath, openWorkspace, resolveInWorkspace } from './workspace';

/** Input schema (the model is untrusted). */
export const editInput = z.strictObject({
  file_path: z.string().min(1),
  old_string: z.string(),
  new_string: z.string(),
  replace_all: booleanInput().optional(),
});

/** Lines of context shown around the change. */
const snippetContext = 3;
const snippetMaxLines = 30;

/** Runs the Edit tool. */
export const runEdit = defineTool('Edit', editInput, async (input, call, env) => {
  if (input.old_string === '') {
    throw new ToolRefusal(
      ErrorType.InvalidToolInput,
      'old_string is empty. Give the exact text to replace, or use Write to create or overwrite a whole file.',
    );
  }
  if (input.old_string === input.new_string) {
    throw new ToolRefusal(
      ErrorType.InvalidToolInput,
      'old_string and new_string are identical, so the edit would change nothing.',
    );
  }
  const workspace = await openWorkspace(call.context);
  const realPath = await resolveInWorkspace(workspace, input.file_path, 'write');
  const snapshot = await readSnapshot(realPath);
  if (!snapshot) {
    throw new ToolRefusal(
      ErrorType.FileNotFound,
      `${input.file_path} does not exist (resolved to ${realPath}). Use Write to create a new file.`,
    );
  }
  const record = requireReadRecord(call.readFileState, realPath, 'editing');
  if (looksBinary(snapshot.content))
    throw new ToolRefusal(ErrorType.BinaryFile, `${realPath} is a binary file; Edit only changes text files.`);
  const text = snapshot.content.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(snapshot.content)) {
    throw new ToolRefusal(
      ErrorType.BinaryFile,
      `${realPath} is not valid UTF-8 text; Edit would corrupt it. Use Bash to change it.`,
    );
  }
  const requested: EditSpec = {
    oldString: input.old_string,
    newString: input.new_string,
    replaceAll: input.replace_all ?? false,
  };
  const variants =
    text.includes('\r\n') && requested.oldString.includes('\n') ? [requested, withCrlf(requested)] : [requested];

  if (!isUnchangedSince(record, snapshot)) {
    // Retried after a crash that happened after the write: the file already holds this edit's result.
    if (variants.some((variant) => isEditAlreadyApplied(text, variant, record.sha256))) {
      return {
        content: `Edited ${displayPath(workspace, realPath)}: the change was already applied.`,
        isError: false,
        readFiles: [recordOf(realPath, snapshot.stat, snapshot.content)],
      };
    }
    throw changedSinceReadRefusal(realPath);
  }

  const edit = variants.find((variant) => countOccurrences(text, variant.oldString) > 0) ?? requested;
  const occurrences = countOccurrences(text, edit.oldString);
  if (occurrences === 0) {
    throw new ToolRefusal(
      ErrorType.StringNotFound,
      `old_string was not found in ${realPath}. It must match the file exactly, including whitespace and indentation, without Read's line-number prefix. Read the file again if unsure.`,
    );
  }
  if (occurrences > 1 && !edit.replaceAll) {
    throw new ToolRefusal(
      ErrorType.StringNotUnique,
      `old_string occurs ${occurrences} times in ${realPath}. Include more surrounding lines to make it unique, or set replace_all: true to replace all ${occurrences}.`,
    );
  }
  const updated = applyEdit(text, edit);
  const content = Buffer.from(updated, 'utf8');
  await writeWorkspaceFile(realPath, content, env);
  const replaced = edit.replaceAll
    ? `${occurrences} ${occurrences === 1 ? 'occurrence' : 'occurrences'}`
    : '1 occurrence';
  return {
    content: `Edited ${displayPath(workspace, realPath)}: replaced ${replaced}.\n${snippet(updated, text.indexOf(edit.oldString), edit.newString)}`,
    isError: false,
    readFiles: [await recordAfterWrite(realPath, content)],
  };
});

/** Numbered lines around the first change, so the model sees the result without another Read. */
function snippet(updated: string, changeOffset: number, inserted: string): string {
  const firstChanged = updated.slice(0, changeOffset).split('\n').length - 1;
  const lastChanged = firstChanged + inserted.split('\n').length - 1;
  const lines = updated.split('\n');
  const from = Math.max(0, firstChanged - snippetContext);
  const to = Math.min(lines.length - 1, lastChanged + snippetContext, from + snippetMaxLines - 1);
  const shown: string[] = [];
  for (let index = from; index <= to; index += 1)
    shown.push(formatNumberedLine(index + 1, lines[index]!.replace(/\r$/, '')));
  return shown.join('\n');
}
