import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBash } from '../../../src/activities/tools/bash';
import { runGrep } from '../../../src/activities/tools/grep';
import { runRead } from '../../../src/activities/tools/read';
import { limitResult, resultFilePath } from '../../../src/activities/tools/result-limit';
import { createTestWorkspace, type TestWorkspace } from './helpers';
import { freshForEachTest } from '../../helpers/unit-fixture';

let workspace: TestWorkspace;
freshForEachTest(createTestWorkspace, (created) => (workspace = created));

describe('oversized results', () => {
  it('saves the full text, returns a preview and records the replacement', async () => {
    const full = Array.from({ length: 400 }, (_, index) => `row ${index} ${'-'.repeat(20)}`).join('\n');
    const call = workspace.call({ command: 'x' }, { context: { maxResultChars: 1000 }, toolUseId: 'toolu_big' });
    const result = await limitResult({ content: full, isError: false }, call, workspace.resultsDir);
    const saved = path.join(workspace.resultsDir, 'agent-1', 'toolu_big.txt');
    expect(result.replacement).toEqual({ toolUseId: 'toolu_big', path: saved, originalChars: full.length });
    expect(await fs.readFile(saved, 'utf8')).toBe(full);
    expect(result.content.length).toBeLessThanOrEqual(1000);
    expect(result.content).toMatch(/^row 0 /);
    expect(result.content).toContain(
      `\n\n... Output too large (${full.length} chars). Full output saved to ${saved}; use Read with offset/limit to see the rest.`,
    );
    expect(result.isError).toBe(false);
    // Writing again (a retried activity) gives the same answer.
    expect(await limitResult({ content: full, isError: false }, call, workspace.resultsDir)).toEqual(result);
  });

  it('leaves results within the limit alone (default 50000 chars)', async () => {
    const content = 'y'.repeat(50_000);
    const result = await limitResult({ content, isError: false }, workspace.call({}), workspace.resultsDir);
    expect(result).toEqual({ content, isError: false });
    const over = await limitResult({ content: `${content}y`, isError: true }, workspace.call({}), workspace.resultsDir);
    expect(over.replacement?.originalChars).toBe(50_001);
    expect(over.isError).toBe(true);
  });

  it('applies to tool output, and the saved file can be read back with Read', async () => {
    await workspace.write('log.txt', Array.from({ length: 2000 }, (_, index) => `match ${index}`).join('\n'));
    const grep = await runGrep(
      workspace.call(
        { pattern: 'match', output_mode: 'content', head_limit: 5000 },
        { context: { maxResultChars: 4000 }, toolUseId: 'toolu_grep' },
      ),
      workspace.env,
    );
    expect(grep.replacement?.path).toBe(resultFilePath(workspace.resultsDir, 'agent-1', 'toolu_grep'));
    expect(grep.content).toMatch(/^log\.txt:1:match 0\n/);
    const back = await runRead(
      workspace.call({ file_path: grep.replacement!.path, offset: 1500, limit: 2 }),
      workspace.env,
    );
    expect(back.content).toBe(
      '  1500\tlog.txt:1500:match 1499\n  1501\tlog.txt:1501:match 1500\n\n(Showing lines 1500-1501 of 2000. Use offset=1502 to read more.)',
    );

    const bash = await runBash(
      workspace.call({ command: 'seq 1 3000' }, { context: { maxResultChars: 2000 } }),
      workspace.env,
    );
    expect(bash.replacement?.originalChars).toBe(13_892);
  });

  it('keeps agent and tool-use ids from escaping the results directory', () => {
    expect(resultFilePath('/r', '../../etc', 'a/b')).toBe(path.join('/r', '.._.._etc', 'a_b.txt'));
    expect(resultFilePath('/r', '..', '.')).toBe(path.join('/r', '_..', '_..txt'));
  });
});
