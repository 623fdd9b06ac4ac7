import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runRead } from '../../../src/activities/tools/read';
import { createTestWorkspace, type TestWorkspace } from './helpers';

let workspace: TestWorkspace;
beforeEach(async () => {
  workspace = await createTestWorkspace();
});
afterEach(() => workspace.cleanup());

const numbered = (lines: string[], first = 1) =>
  lines.map((line, index) => `${String(first + index).padStart(6)}\t${line}`).join('\n');

describe('Read', () => {
  it('returns cat -n style lines and a record of the whole file', async () => {
    const file = await workspace.write('src/a.ts', 'one\ntwo\r\nthree\n');
    const result = await runRead(workspace.call({ file_path: 'src/a.ts' }), workspace.env);
    expect(result).toMatchObject({ isError: false, content: numbered(['one', 'two', 'three']) });
    const stat = await fs.stat(file);
    expect(result.readFiles).toEqual([
      {
        path: file,
        mtimeMs: stat.mtimeMs,
        size: 15,
        sha256: createHash('sha256').update('one\ntwo\r\nthree\n').digest('hex'),
      },
    ]);
  });

  it('reads a window with offset and limit and says where to go on', async () => {
    const lines = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`);
    await workspace.write('long.txt', lines.join('\n'));
    const result = await runRead(workspace.call({ file_path: 'long.txt', offset: 10, limit: 5 }), workspace.env);
    expect(result.content).toBe(
      `${numbered(lines.slice(9, 14), 10)}\n\n(Showing lines 10-14 of 30. Use offset=15 to read more.)`,
    );
    const tail = await runRead(workspace.call({ file_path: 'long.txt', offset: '28' }), workspace.env);
    expect(tail.content).toBe(`${numbered(lines.slice(27), 28)}\n\n(Showing lines 28-30 of 30.)`);
  });

  it('stops at 2000 lines by default', async () => {
    await workspace.write('many.txt', Array.from({ length: 2500 }, (_, index) => `${index + 1}`).join('\n'));
    const result = await runRead(workspace.call({ file_path: 'many.txt' }), workspace.env);
    expect(result.content.split('\n').filter((line) => /^\s+\d+\t/.test(line))).toHaveLength(2000);
    expect(result.content).toMatch(/\(Showing lines 1-2000 of 2500\. Use offset=2001 to read more\.\)$/);
  });

  it('truncates lines longer than 2000 characters', async () => {
    await workspace.write('wide.txt', `${'x'.repeat(2500)}\nshort\n`);
    const result = await runRead(workspace.call({ file_path: 'wide.txt' }), workspace.env);
    const [first, second] = result.content.split('\n');
    expect(first).toBe(`     1\t${'x'.repeat(2000)}... [line truncated: 2500 characters]`);
    expect(second).toBe('     2\tshort');
  });

  it('refuses files over 256 KiB without offset/limit, and reads them with a range', async () => {
    const line = `${'y'.repeat(99)}\n`;
    await workspace.write('big.txt', line.repeat(3000));
    const refused = await runRead(workspace.call({ file_path: 'big.txt' }), workspace.env);
    expect(refused.isError).toBe(true);
    expect(refused.content).toMatch(/^FileTooLarge: .*300000 bytes.*offset and limit/);
    const part = await runRead(workspace.call({ file_path: 'big.txt', offset: 2999, limit: 10 }), workspace.env);
    expect(part.isError).toBe(false);
    expect(part.content).toBe(
      `${numbered(['y'.repeat(99), 'y'.repeat(99)], 2999)}\n\n(Showing lines 2999-3000 of 3000.)`,
    );
    expect(part.readFiles?.[0]?.size).toBe(300000);
  });

  it('keeps the output within maxResultChars by stopping early', async () => {
    await workspace.write('dense.txt', Array.from({ length: 200 }, () => 'z'.repeat(100)).join('\n'));
    const result = await runRead(
      workspace.call({ file_path: 'dense.txt' }, { context: { maxResultChars: 5000 } }),
      workspace.env,
    );
    expect(result.replacement).toBeUndefined();
    expect(result.content.length).toBeLessThanOrEqual(5000);
    expect(result.content).toMatch(/Output stopped after line (\d+) of 200 .* use offset=\d+ to read on/);
  });

  it('notes an empty file and an offset past the end', async () => {
    await workspace.write('empty.txt', '');
    const empty = await runRead(workspace.call({ file_path: 'empty.txt' }), workspace.env);
    expect(empty).toMatchObject({ isError: false, content: 'empty.txt exists but is empty (0 bytes).' });
    expect(empty.readFiles?.[0]?.size).toBe(0);
    await workspace.write('three.txt', 'a\nb\nc\n');
    const past = await runRead(workspace.call({ file_path: 'three.txt', offset: 9 }), workspace.env);
    expect(past.content).toBe('three.txt has 3 lines; offset 9 is past the end. Use an offset between 1 and 3.');
  });

  it('refuses directories, binary files and missing files clearly', async () => {
    await fs.mkdir(path.join(workspace.root, 'dir'));
    await workspace.write('image.bin', Buffer.from([0x89, 0x50, 0x00, 0x01, 0x02]));
    const directory = await runRead(workspace.call({ file_path: 'dir' }), workspace.env);
    expect(directory.isError).toBe(true);
    expect(directory.content).toMatch(/^NotAFile: .*dir is a directory\. Use Glob/);
    const binary = await runRead(workspace.call({ file_path: 'image.bin' }), workspace.env);
    expect(binary.content).toMatch(/^BinaryFile: /);
    expect(binary.readFiles).toBeUndefined();
    const missing = await runRead(workspace.call({ file_path: 'nope.txt' }), workspace.env);
    expect(missing).toMatchObject({ isError: true });
    expect(missing.content).toMatch(/^FileNotFound: nope.txt does not exist/);
  });

  it('validates its input and names the bad field', async () => {
    const missing = await runRead(workspace.call({}), workspace.env);
    expect(missing.content).toBe(
      'InvalidToolInput: Read was called with invalid input: "file_path" is required (expected string). Fix the input and call Read again.',
    );
    const wrongType = await runRead(workspace.call({ file_path: 'a', limit: 'ten' }), workspace.env);
    expect(wrongType.isError).toBe(true);
    expect(wrongType.content).toMatch(/"limit": /);
    const unknown = await runRead(workspace.call({ file_path: 'a', lines: 3 }), workspace.env);
    expect(unknown.content).toMatch(/unknown field "lines" \(allowed fields: file_path, offset, limit\)/);
  });

  it('can read saved results from the results directory', async () => {
    const saved = path.join(workspace.resultsDir, 'agent-1', 'toolu_x.txt');
    await fs.mkdir(path.dirname(saved), { recursive: true });
    await fs.writeFile(saved, 'saved output\n');
    const result = await runRead(workspace.call({ file_path: saved }), workspace.env);
    expect(result).toMatchObject({ isError: false, content: '     1\tsaved output' });
  });

  it('returns a cancelled error when aborted', async () => {
    await workspace.write('a.txt', 'a\n');
    workspace.abort.abort();
    const result = await runRead(workspace.call({ file_path: 'a.txt' }), workspace.env);
    expect(result).toEqual({ isError: true, content: 'Read was cancelled.' });
  });
});
