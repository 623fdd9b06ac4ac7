import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runEdit } from '../../../src/activities/tools/edit';
import { runRead } from '../../../src/activities/tools/read';
import { runWrite } from '../../../src/activities/tools/write';
import type { ReadFileState, ToolCallResult } from '../../../src/shared/tools/tools';
import { createTestWorkspace, type TestWorkspace } from './helpers';

let workspace: TestWorkspace;
let file: string;
beforeEach(async () => {
  workspace = await createTestWorkspace();
  file = await workspace.write('src/app.ts', 'const a = 1;\nconst b = 2;\nconst c = a + b;\n');
});
afterEach(() => workspace.cleanup());

/** Reads files the way the workflow does: merging each result's records into the state. */
async function readInto(state: ReadFileState, filePath: string): Promise<ToolCallResult> {
  const result = await runRead(workspace.call({ file_path: filePath }), workspace.env);
  for (const record of result.readFiles ?? []) state[record.path] = record;
  return result;
}

const edit = (input: Record<string, unknown>, readFileState: ReadFileState) =>
  runEdit(workspace.call(input, { readFileState }), workspace.env);
const write = (input: Record<string, unknown>, readFileState: ReadFileState = {}) =>
  runWrite(workspace.call(input, { readFileState }), workspace.env);

describe('Edit', () => {
  it('refuses a file the agent has not read', async () => {
    const result = await edit({ file_path: 'src/app.ts', old_string: 'a = 1', new_string: 'a = 10' }, {});
    expect(result).toEqual({ isError: true, content: `FileNotRead: Read ${file} before editing it.` });
    expect(await fs.readFile(file, 'utf8')).toContain('a = 1;');
  });

  it('replaces a unique string after a Read and returns the new record', async () => {
    const state: ReadFileState = {};
    await readInto(state, 'src/app.ts');
    const result = await edit(
      { file_path: 'src/app.ts', old_string: 'const b = 2;', new_string: 'const b = 20;' },
      state,
    );
    expect(result.isError).toBe(false);
    expect(result.content).toBe(
      'Edited src/app.ts: replaced 1 occurrence.\n     1\tconst a = 1;\n     2\tconst b = 20;\n     3\tconst c = a + b;\n     4\t',
    );
    expect(await fs.readFile(file, 'utf8')).toBe('const a = 1;\nconst b = 20;\nconst c = a + b;\n');
    const stat = await fs.stat(file);
    expect(result.readFiles).toEqual([expect.objectContaining({ path: file, size: stat.size, mtimeMs: stat.mtimeMs })]);
    // The new record lets a second edit go through without another Read.
    for (const record of result.readFiles ?? []) state[record.path] = record;
    expect(
      (await edit({ file_path: 'src/app.ts', old_string: 'const a = 1;', new_string: 'const a = 5;' }, state)).isError,
    ).toBe(false);
  });

  it('refuses after an external change, and allows a mere touch', async () => {
    const state: ReadFileState = {};
    await readInto(state, 'src/app.ts');
    await fs.utimes(file, new Date(), new Date(Date.now() + 5000));
    expect(
      (await edit({ file_path: 'src/app.ts', old_string: 'const a = 1;', new_string: 'const a = 2;' }, state)).isError,
    ).toBe(false);

    const other: ReadFileState = {};
    await readInto(other, 'src/app.ts');
    await fs.appendFile(file, '// changed by someone else\n');
    const result = await edit(
      { file_path: 'src/app.ts', old_string: 'const b = 2;', new_string: 'const b = 3;' },
      other,
    );
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^FileChangedSinceRead: .*re-read it with Read/);
    expect(await fs.readFile(file, 'utf8')).toContain('const b = 2;');
  });

  it('refuses a stale record (e.g. inherited into a worktree)', async () => {
    const state: ReadFileState = {};
    await readInto(state, 'src/app.ts');
    state[file] = { ...state[file]!, stale: true };
    const result = await edit(
      { file_path: 'src/app.ts', old_string: 'const a = 1;', new_string: 'const a = 2;' },
      state,
    );
    expect(result.content).toMatch(/^FileNotRead: .*Read .* again before editing it/);
  });

  it('is idempotent when retried after a crash that followed the write', async () => {
    const state: ReadFileState = {};
    await readInto(state, 'src/app.ts');
    const input = {
      file_path: 'src/app.ts',
      old_string: 'const b = 2;\n',
      new_string: 'const b = 2;\nconst extra = 0;\n',
    };
    const first = await edit(input, state);
    expect(first.isError).toBe(false);
    const afterFirst = await fs.readFile(file, 'utf8');
    // The workflow never saw the result, so the retry carries the old read-file state.
    const retry = await edit(input, state);
    expect(retry).toMatchObject({ isError: false, content: 'Edited src/app.ts: the change was already applied.' });
    expect(await fs.readFile(file, 'utf8')).toBe(afterFirst);
    expect(retry.readFiles?.[0]?.sha256).toBe(first.readFiles?.[0]?.sha256);
  });

  it('is idempotent for deletions and replace_all too, but not for a different change', async () => {
    const state: ReadFileState = {};
    await readInto(state, 'src/app.ts');
    const deletion = { file_path: 'src/app.ts', old_string: 'const b = 2;\n', new_string: '' };
    expect((await edit(deletion, state)).isError).toBe(false);
    expect((await edit(deletion, state)).isError).toBe(false);
    expect(await fs.readFile(file, 'utf8')).toBe('const a = 1;\nconst c = a + b;\n');

    const renamed: ReadFileState = {};
    await readInto(renamed, 'src/app.ts');
    const rename = { file_path: 'src/app.ts', old_string: 'const', new_string: 'let', replace_all: true };
    expect((await edit(rename, renamed)).content).toMatch(/^Edited src\/app\.ts: replaced 2 occurrences\./);
    expect((await edit(rename, renamed)).content).toBe('Edited src/app.ts: the change was already applied.');
    const different = await edit({ file_path: 'src/app.ts', old_string: 'const a', new_string: 'var a' }, renamed);
    expect(different.content).toMatch(/^FileChangedSinceRead: /);
  });

  it('requires old_string to be unique unless replace_all, and to exist', async () => {
    const state: ReadFileState = {};
    await readInto(state, 'src/app.ts');
    const ambiguous = await edit({ file_path: 'src/app.ts', old_string: 'const', new_string: 'let' }, state);
    expect(ambiguous.content).toMatch(/^StringNotUnique: old_string occurs 3 times in .*replace_all: true/);
    const missing = await edit({ file_path: 'src/app.ts', old_string: 'const d', new_string: 'let d' }, state);
    expect(missing.content).toMatch(/^StringNotFound: old_string was not found/);
    const all = await edit(
      { file_path: 'src/app.ts', old_string: 'const', new_string: 'let', replace_all: true },
      state,
    );
    expect(all.content).toMatch(/^Edited src\/app\.ts: replaced 3 occurrences\./);
    expect(await fs.readFile(file, 'utf8')).toBe('let a = 1;\nlet b = 2;\nlet c = a + b;\n');
  });

  it('refuses identical or empty strings and missing files, and replaces $ patterns literally', async () => {
    const state: ReadFileState = {};
    await readInto(state, 'src/app.ts');
    expect((await edit({ file_path: 'src/app.ts', old_string: 'a', new_string: 'a' }, state)).content).toMatch(
      /^InvalidToolInput: old_string and new_string are identical/,
    );
    expect((await edit({ file_path: 'src/app.ts', old_string: '', new_string: 'x' }, state)).content).toMatch(
      /^InvalidToolInput: old_string is empty/,
    );
    expect((await edit({ file_path: 'src/none.ts', old_string: 'a', new_string: 'b' }, state)).content).toMatch(
      /^FileNotFound: .*Use Write/,
    );
    await edit({ file_path: 'src/app.ts', old_string: 'a + b', new_string: "$& $' $1" }, state);
    expect(await fs.readFile(file, 'utf8')).toContain("const c = $& $' $1;");
  });

  it('edits files with CRLF line endings using \\n in old_string', async () => {
    const crlf = await workspace.write('win.txt', 'first\r\nsecond\r\nthird\r\n');
    const state: ReadFileState = {};
    await readInto(state, 'win.txt');
    const result = await edit({ file_path: 'win.txt', old_string: 'first\nsecond', new_string: 'one\ntwo' }, state);
    expect(result.isError).toBe(false);
    expect(await fs.readFile(crlf, 'utf8')).toBe('one\r\ntwo\r\nthird\r\n');
  });

  it('uses the real path as key, so a symlinked path needs the same Read', async () => {
    await fs.symlink(path.join(workspace.root, 'src'), path.join(workspace.root, 'alias'));
    const state: ReadFileState = {};
    await readInto(state, 'alias/app.ts');
    expect(Object.keys(state)).toEqual([file]);
    expect(
      (await edit({ file_path: 'src/app.ts', old_string: 'const a = 1;', new_string: 'const a = 9;' }, state)).isError,
    ).toBe(false);
  });
});

describe('Write', () => {
  it('creates new files with their parent directories and returns the record', async () => {
    const result = await write({ file_path: 'new/dir/file.md', content: '# Title\n\ntext\n' });
    expect(result.content).toBe('Created new/dir/file.md (3 lines, 14 bytes).');
    const created = path.join(workspace.root, 'new/dir/file.md');
    expect(await fs.readFile(created, 'utf8')).toBe('# Title\n\ntext\n');
    expect(result.readFiles).toEqual([expect.objectContaining({ path: created, size: 14 })]);
  });

  it('refuses to overwrite an existing file that was not read', async () => {
    const result = await write({ file_path: 'src/app.ts', content: 'replaced' });
    expect(result).toEqual({ isError: true, content: `FileNotRead: Read ${file} before overwriting it.` });
    expect(await fs.readFile(file, 'utf8')).toContain('const a = 1;');
  });

  it('overwrites a file that was read and is unchanged, but not one changed since', async () => {
    const state: ReadFileState = {};
    await readInto(state, 'src/app.ts');
    expect((await write({ file_path: 'src/app.ts', content: 'v2\n' }, state)).content).toBe(
      'Overwrote src/app.ts (1 line, 3 bytes).',
    );
    await fs.writeFile(file, 'changed outside\n');
    const refused = await write({ file_path: 'src/app.ts', content: 'v3\n' }, state);
    expect(refused.content).toMatch(/^FileChangedSinceRead: /);
    expect(await fs.readFile(file, 'utf8')).toBe('changed outside\n');
  });

  it('succeeds on a retry after the file was already written', async () => {
    const input = { file_path: 'fresh.txt', content: 'hello\n' };
    expect((await write(input)).isError).toBe(false);
    const retry = await write(input);
    expect(retry).toMatchObject({
      isError: false,
      content: 'fresh.txt already has this content (1 line); nothing changed.',
    });
  });

  it('refuses a directory as file_path and validates input', async () => {
    await fs.mkdir(path.join(workspace.root, 'adir'));
    expect((await write({ file_path: 'adir', content: 'x' })).content).toMatch(/^NotAFile: /);
    expect((await write({ file_path: 'x.txt' })).content).toMatch(/^InvalidToolInput: .*"content" is required/);
  });
});

describe('hard-linked files', () => {
  let victim: string;
  beforeEach(async () => {
    victim = path.join(workspace.outside, 'victim.txt');
    await fs.writeFile(victim, 'outside content\n', { mode: 0o640 });
    await fs.link(victim, path.join(workspace.root, 'hl.txt'));
  });

  it('Edit and Write refuse a file with another link and leave the outside file unchanged', async () => {
    const state: ReadFileState = {};
    await readInto(state, 'hl.txt');
    const edited = await edit({ file_path: 'hl.txt', old_string: 'outside', new_string: 'planted' }, state);
    expect(edited.isError).toBe(true);
    expect(edited.content).toMatch(
      /^HardLinkedFile: .*hl\.txt has 2 hard links, so writing it would also change the same file under its other names, which may be outside the workspace\. Nothing was written\./,
    );
    expect(edited.content).toContain('SUBAGENTS_ALLOW_HARDLINK_WRITES=1');
    const written = await write({ file_path: 'hl.txt', content: 'planted\n' }, state);
    expect(written.content).toMatch(/^HardLinkedFile: /);
    expect(await fs.readFile(victim, 'utf8')).toBe('outside content\n');
    expect(await fs.readFile(path.join(workspace.root, 'hl.txt'), 'utf8')).toBe('outside content\n');
  });

  it('checks the link count when writing, not when reading', async () => {
    const state: ReadFileState = {};
    await readInto(state, 'src/app.ts');
    // Linked after the Read: the write itself must notice.
    await fs.link(file, path.join(workspace.outside, 'app-twin.ts'));
    const edited = await edit(
      { file_path: 'src/app.ts', old_string: 'const b = 2;', new_string: 'const b = 20;' },
      state,
    );
    expect(edited.content).toMatch(/^HardLinkedFile: /);
    expect(await fs.readFile(path.join(workspace.outside, 'app-twin.ts'), 'utf8')).toContain('const b = 2;');
  });

  it('with allowHardLinkWrites, writes the workspace name through a fresh inode and keeps the outside file', async () => {
    const env = { ...workspace.env, allowHardLinkWrites: true };
    const state: ReadFileState = {};
    await readInto(state, 'hl.txt');
    const edited = await runEdit(
      workspace.call({ file_path: 'hl.txt', old_string: 'outside', new_string: 'inside' }, { readFileState: state }),
      env,
    );
    expect(edited.isError).toBe(false);
    const inWorkspace = path.join(workspace.root, 'hl.txt');
    expect(await fs.readFile(inWorkspace, 'utf8')).toBe('inside content\n');
    expect(await fs.readFile(victim, 'utf8')).toBe('outside content\n');
    const [inside, outside] = await Promise.all([fs.stat(inWorkspace), fs.stat(victim)]);
    expect(inside.ino).not.toBe(outside.ino);
    expect([inside.nlink, outside.nlink, inside.mode & 0o777]).toEqual([1, 1, 0o640]);
    expect((await fs.readdir(workspace.root)).sort()).toEqual(['hl.txt', 'src']);

    await fs.link(inWorkspace, path.join(workspace.outside, 'second.txt'));
    for (const record of edited.readFiles ?? []) state[record.path] = record;
    const written = await runWrite(
      workspace.call({ file_path: 'hl.txt', content: 'rewritten\n' }, { readFileState: state }),
      env,
    );
    expect(written.isError).toBe(false);
    expect(await fs.readFile(inWorkspace, 'utf8')).toBe('rewritten\n');
    expect(await fs.readFile(path.join(workspace.outside, 'second.txt'), 'utf8')).toBe('inside content\n');
  });
});
