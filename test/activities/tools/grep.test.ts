import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runGrep } from '../../../src/activities/tools/grep';
import { findRipgrep } from '../../../src/activities/tools/ripgrep';
import { createTestWorkspace, setMtime, type TestWorkspace } from './helpers';
import { buildIgnoreTree } from './ignore-tree';

const ripgrep = await findRipgrep();
if (!ripgrep)
  console.warn(
    'grep.test.ts: rg is not installed (apt-get install ripgrep): the ripgrep engine is not tested, only the JavaScript fallback.',
  );

// The same behaviour from both engines: rg when installed, the JavaScript fallback in a worker thread otherwise.
describe.each([
  { engine: 'ripgrep', option: (ripgrep ?? false) as string | false, skip: !ripgrep },
  { engine: 'JavaScript fallback', option: false as const, skip: false },
])('Grep with $engine', ({ engine, option, skip }) => {
  let workspace: TestWorkspace;
  beforeEach(async () => {
    workspace = await createTestWorkspace({ ripgrep: option });
    await setMtime(
      await workspace.write('src/a.ts', 'import x from "y";\nconst alpha = 1;\n// TODO alpha\nexport { alpha };\n'),
      2_000_000,
    );
    await setMtime(await workspace.write('src/b.js', 'const Alpha = 2;\n'), 3_000_000);
    await setMtime(
      await workspace.write(
        'docs/notes.md',
        'line 1\nline 2\nalpha here\nline 4\nline 5\nline 6\nline 7\nalpha again\nline 9\n',
      ),
      1_000_000,
    );
  });
  afterEach(() => workspace.cleanup());

  const grep = (input: Record<string, unknown>) => runGrep(workspace.call(input), workspace.env);

  describe.skipIf(skip)('Grep', () => {
    it('lists matching files newest first by default', async () => {
      expect(await grep({ pattern: 'alpha' })).toEqual({
        isError: false,
        content: 'Found 2 files\nsrc/a.ts\ndocs/notes.md',
      });
      expect((await grep({ pattern: 'alpha', '-i': true })).content).toBe(
        'Found 3 files\nsrc/b.js\nsrc/a.ts\ndocs/notes.md',
      );
    });

    it('shows matching lines with line numbers in content mode', async () => {
      const result = await grep({ pattern: 'alpha', output_mode: 'content', path: 'src' });
      expect(result.content).toBe(
        'src/a.ts:2:const alpha = 1;\nsrc/a.ts:3:// TODO alpha\nsrc/a.ts:4:export { alpha };',
      );
      const plain = await grep({ pattern: 'TODO', output_mode: 'content', '-n': false });
      expect(plain.content).toBe('src/a.ts:// TODO alpha');
    });

    it('prints context lines and separates groups with --', async () => {
      const result = await grep({ pattern: 'alpha', output_mode: 'content', path: 'docs', '-C': 1 });
      expect(result.content).toBe(
        [
          'docs/notes.md-2-line 2',
          'docs/notes.md:3:alpha here',
          'docs/notes.md-4-line 4',
          '--',
          'docs/notes.md-7-line 7',
          'docs/notes.md:8:alpha again',
          'docs/notes.md-9-line 9',
        ].join('\n'),
      );
      const afterOnly = await grep({ pattern: 'alpha here', output_mode: 'content', '-A': 2, '-C': 5 });
      expect(afterOnly.content).toBe(
        [
          'docs/notes.md-1-line 1',
          'docs/notes.md-2-line 2',
          'docs/notes.md:3:alpha here',
          'docs/notes.md-4-line 4',
          'docs/notes.md-5-line 5',
        ].join('\n'),
      );
      const merged = await grep({ pattern: 'alpha', output_mode: 'content', path: 'docs', '-A': 4 });
      expect(merged.content.split('\n')).toHaveLength(7);
      expect(merged.content).not.toContain('--');
    });

    it('counts matching lines per file', async () => {
      const result = await grep({ pattern: 'alpha', output_mode: 'count' });
      expect(result.content).toBe('docs/notes.md:2\nsrc/a.ts:3\n\nTotal: 5 matching lines in 2 files.');
    });

    it('filters by glob and type', async () => {
      expect((await grep({ pattern: 'lpha', '-i': true, glob: '*.{js,md}' })).content).toBe(
        'Found 2 files\nsrc/b.js\ndocs/notes.md',
      );
      expect((await grep({ pattern: 'lpha', glob: 'src/*' })).content).toBe('Found 2 files\nsrc/b.js\nsrc/a.ts');
      expect((await grep({ pattern: 'lpha', glob: '!*.md' })).content).toBe('Found 2 files\nsrc/b.js\nsrc/a.ts');
      expect((await grep({ pattern: 'lpha', type: 'ts' })).content).toBe('Found 1 file\nsrc/a.ts');
      expect((await grep({ pattern: 'lpha', type: 'markdown' })).content).toBe('Found 1 file\ndocs/notes.md');
      const unknown = await grep({ pattern: 'x', type: 'cobol' });
      expect(unknown.isError).toBe(true);
      expect(unknown.content).toMatch(/^InvalidToolInput: unknown type "cobol"\. Known types: .*\bts\b/);
    });

    it('searches a single file given as path', async () => {
      const result = await grep({ pattern: 'line [12]$', path: 'docs/notes.md', output_mode: 'content' });
      expect(result.content).toBe('docs/notes.md:1:line 1\ndocs/notes.md:2:line 2');
    });

    it('matches across lines in multiline mode', async () => {
      // rg refuses a newline in a pattern outside multiline mode and says how to enable it; JavaScript finds no line.
      expect((await grep({ pattern: 'alpha = 1;\\n// TODO' })).content).toMatch(
        engine === 'ripgrep'
          ? /^InvalidPattern: .*ripgrep said: the literal '"\\n"' is not allowed in a regex[^]*In Grep, set multiline: true/
          : /^No matches found/,
      );
      const result = await grep({ pattern: 'alpha = 1;\\n// TODO', multiline: true, output_mode: 'content' });
      expect(result.content).toBe('src/a.ts:2:const alpha = 1;\nsrc/a.ts:3:// TODO alpha');
      // One match spanning four lines counts once, as rg --count counts it.
      const dotAll = await grep({ pattern: 'import.*export', multiline: true, output_mode: 'count' });
      expect(dotAll.content).toMatch(/^src\/a\.ts:1\n/);
    });

    it('respects .gitignore and skips binary files', async () => {
      await buildIgnoreTree(workspace.root);
      for (const file of [
        'b.log',
        'secret.txt',
        'build/out.js',
        'node_modules/pkg/index.js',
        'src/cache/x.ts',
        'important.log',
        'nested/n.log',
      ]) {
        await workspace.write(file, 'needle\n');
      }
      await workspace.write('data.bin', Buffer.concat([Buffer.from('needle\n'), Buffer.from([0, 1, 2])]));
      const result = await grep({ pattern: 'needle' });
      expect(result.content.split('\n').slice(1).sort()).toEqual(['important.log', 'nested/n.log']);
    });

    it('refuses an invalid regular expression clearly', async () => {
      const result = await grep({ pattern: 'foo(' });
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(
        engine === 'ripgrep'
          ? /^InvalidPattern: "foo\(" is not valid in ripgrep's regex syntax \(Rust regex; .*\)\. ripgrep said: regex parse error:[^]*unclosed group\nEscape/
          : /^InvalidPattern: "foo\(" is not a valid JavaScript regular expression \(.+\); ripgrep is not installed on this worker, so Grep uses JavaScript syntax\. Escape/,
      );
    });

    it('caps entries at 250 by default, or head_limit, with a note', async () => {
      await workspace.write('big/many.txt', Array.from({ length: 300 }, (_, index) => `hit ${index}`).join('\n'));
      const capped = await grep({ pattern: 'hit', output_mode: 'content', path: 'big' });
      const output = capped.content.split('\n');
      expect(output).toHaveLength(251);
      // The search stops once the lines are collected, so the note cannot say how many more there were.
      expect(output[250]).toBe(
        '(results truncated at 250 lines; narrow the search with path, glob or type, or raise head_limit)',
      );
      const limited = await grep({ pattern: 'alpha', head_limit: 1 });
      expect(limited.content).toBe(
        'Found 2 files\nsrc/a.ts\n(results truncated: 1 more; narrow the search with path, glob or type, or raise head_limit)',
      );
    });

    it('validates its input', async () => {
      const result = await grep({ pattern: 'x', output_mode: 'lines', '-A': -1 });
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(/"output_mode": .*"-A": /);
    });

    it('reports paths outside the working directory as absolute', async () => {
      const result = await runGrep(
        workspace.call({ pattern: 'Alpha', path: '..' }, { context: { cwd: path.join(workspace.root, 'docs') } }),
        workspace.env,
      );
      expect(result.content).toBe(`Found 1 file\n${path.join(workspace.root, 'src/b.js')}`);
    });
  });
});
