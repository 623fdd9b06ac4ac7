/** Grep under hostile input: a backtracking pattern, large files, runaway output, rg's syntax and refusals. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runGrep } from '../../../src/activities/tools/grep';
import { searchWithFallback } from '../../../src/activities/tools/grep-fallback';
import { findRipgrep } from '../../../src/activities/tools/ripgrep';
import { createTestWorkspace, type TestWorkspace } from './helpers';

const ripgrep = await findRipgrep();
if (!ripgrep)
  console.warn('grep-limits.test.ts: rg is not installed (apt-get install ripgrep): its tests are skipped.');

let workspace: TestWorkspace;
beforeEach(async () => {
  workspace = await createTestWorkspace({ ripgrep: ripgrep ?? false });
});
afterEach(() => workspace.cleanup());

const grep = (input: Record<string, unknown>, env = workspace.env) => runGrep(workspace.call(input), env);

/** Runs `work` while a 20 ms timer ticks; the longest gap between ticks says how long the event loop was blocked. */
async function longestEventLoopGap<T>(work: () => Promise<T>): Promise<{ result: T; gapMs: number }> {
  let last = performance.now();
  let gapMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    gapMs = Math.max(gapMs, now - last);
    last = now;
  }, 20);
  try {
    const result = await work();
    gapMs = Math.max(gapMs, performance.now() - last);
    return { result, gapMs };
  } finally {
    clearInterval(timer);
  }
}

/** Lines of 50,000 `a`s then `b`: `(a+)+$` backtracks exponentially on each in a backtracking engine. */
const catastrophicText = `${'a'.repeat(50_000)}b\n`.repeat(3);

/** An executable stand-in for rg, written as a Node script. */
async function standInRipgrep(body: string): Promise<string> {
  const file = path.join(workspace.outside, 'rg');
  await fs.writeFile(file, `#!${process.execPath}\n${body}\n`, { mode: 0o755 });
  return file;
}

describe.skipIf(!ripgrep)('Grep on ripgrep', () => {
  it('answers a catastrophic pattern promptly and never blocks the event loop', async () => {
    for (let index = 0; index < 3; index += 1) await workspace.write(`slow/${index}.txt`, catastrophicText);
    await workspace.write('slow/hit.txt', 'aaab\naaa\n');
    const { result, gapMs } = await longestEventLoopGap(() => grep({ pattern: '(a+)+$', output_mode: 'content' }));
    expect(result).toEqual({ isError: false, content: 'slow/hit.txt:2:aaa' });
    expect(gapMs).toBeLessThan(1_000);
  });

  it('keeps memory bounded by head_limit over large files with matches on every line', async () => {
    const line = 'match this line please '.repeat(4);
    const block = `${line}\n`.repeat(Math.ceil((6 * 1024 * 1024) / (line.length + 1)));
    for (let index = 0; index < 4; index += 1) await workspace.write(`big/f${index}.txt`, block); // 24 MiB in all
    const memory = () => {
      const usage = process.memoryUsage();
      return usage.heapUsed + usage.arrayBuffers;
    };
    const before = memory();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, memory())), 5);
    const result = await grep({ pattern: 'match', path: 'big', output_mode: 'content', head_limit: 5 });
    clearInterval(sampler);
    peak = Math.max(peak, memory());
    // Reading even one of the files into this process costs more than this.
    expect(peak - before).toBeLessThan(4 * 1024 * 1024);
    const lines = result.content.split('\n');
    expect(lines.slice(0, 5)).toEqual([1, 2, 3, 4, 5].map((number) => `big/f0.txt:${number}:${line}`));
    expect(lines[5]).toBe(
      '(results truncated at 5 lines; narrow the search with path, glob or type, or raise head_limit)',
    );
    expect(lines).toHaveLength(6);
  });

  it('cuts a very long line in rg before it reaches this process', async () => {
    await workspace.write('long.txt', `${'x'.repeat(3 * 1024 * 1024)} needle\n`);
    const result = await grep({ pattern: 'needle|^x', output_mode: 'content' });
    expect(result.content).toBe(`long.txt:1:${'x'.repeat(2000)} [... omitted end of long line]`);
  });

  it('stops rg as soon as head_limit lines are in, however much it would still print', async () => {
    // Endless output: the call can only end if Grep stops reading and kills the process.
    const endless = await standInRipgrep(
      "const chunk = Buffer.from('./f.txt\\u00001:match\\n'.repeat(1000));\n" +
        "const pump = () => { while (process.stdout.write(chunk)); process.stdout.once('drain', pump); };\n" +
        "process.stdout.on('error', () => process.exit(0));\npump();",
    );
    const result = await grep(
      { pattern: 'match', output_mode: 'content', head_limit: 3 },
      { ...workspace.env, ripgrep: endless },
    );
    expect(result.content).toBe(
      'f.txt:1:match\nf.txt:1:match\nf.txt:1:match\n(results truncated at 3 lines; narrow the search with path, glob or type, or raise head_limit)',
    );
  });

  it('heartbeats while rg runs and kills it when the call is aborted', async () => {
    const pidFile = path.join(workspace.outside, 'rg.pid');
    const slow = await standInRipgrep(
      `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));\nsetTimeout(() => {}, 60_000);`,
    );
    const call = grep({ pattern: 'x' }, { ...workspace.env, ripgrep: slow });
    let pid: number | undefined;
    while (pid === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      pid = await fs.readFile(pidFile, 'utf8').then(Number, () => undefined);
    }
    while (workspace.env.heartbeats.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(workspace.env.heartbeats[0]).toEqual({ kind: 'tool', tool: 'Grep' });
    workspace.abort.abort();
    expect(await call).toEqual({ isError: true, content: 'Grep was cancelled.' });
    const alive = () => {
      try {
        process.kill(pid!, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let attempt = 0; attempt < 100 && alive(); attempt += 1)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(alive()).toBe(false);
  });

  it("uses ripgrep's syntax: \\d, inline flags, a pattern starting with -", async () => {
    await workspace.write('a.txt', 'version 42\nHELLO there\n-v flag\n--files here\n');
    expect((await grep({ pattern: 'version \\d+', output_mode: 'content' })).content).toBe('a.txt:1:version 42');
    expect((await grep({ pattern: '(?i)hello', output_mode: 'content' })).content).toBe('a.txt:2:HELLO there');
    expect((await grep({ pattern: '-v', output_mode: 'content' })).content).toBe('a.txt:3:-v flag');
    // Read as an option, this would list files instead of searching.
    expect((await grep({ pattern: '--files', output_mode: 'content' })).content).toBe('a.txt:4:--files here');
  });

  it('refuses a regex ripgrep rejects, quoting its message', async () => {
    const lookBehind = await grep({ pattern: '(?<=a)b' });
    expect(lookBehind.isError).toBe(true);
    expect(lookBehind.content).toMatch(
      /^InvalidPattern: "\(\?<=a\)b" is not valid in ripgrep's regex syntax \(Rust regex; no look-around or backreferences\)\. ripgrep said: regex parse error:[^]*look-around/,
    );
  });

  it('splits the glob input as Claude Code does and lets rg apply it', async () => {
    for (const file of ['a.ts', 'b.tsx', 'c.js', 'd.md']) await workspace.write(file, 'hit\n');
    expect((await grep({ pattern: 'hit', glob: '*.ts,*.js' })).content.split('\n').slice(1).sort()).toEqual([
      'a.ts',
      'c.js',
    ]);
    expect((await grep({ pattern: 'hit', glob: '*.{ts,tsx} *.md' })).content.split('\n').slice(1).sort()).toEqual([
      'a.ts',
      'b.tsx',
      'd.md',
    ]);
  });
});

/** A case-sensitive, single-line content search for `pattern` with line numbers and no context. */
const contentSearch = (pattern: string) => ({
  pattern,
  mode: 'content' as const,
  ignoreCase: false,
  multiline: false,
  before: 0,
  after: 0,
  lineNumbers: true,
  cap: 10,
});

describe('the JavaScript fallback', () => {
  it('stops a search past its time limit with an error that says to install ripgrep, without blocking the event loop', async () => {
    const file = await workspace.write('slow.txt', catastrophicText);
    const request = contentSearch('(a+)+$');
    const { result, gapMs } = await longestEventLoopGap(() =>
      searchWithFallback(request, [{ path: file, shown: 'slow.txt' }], workspace.env, 300).then(
        () => 'answered',
        (error: Error) => error.message,
      ),
    );
    expect(result).toMatch(
      /^SearchTimedOut: the search for "\(a\+\)\+\$" took longer than 0\.3 s and was stopped: ripgrep is not installed.*Install ripgrep \(apt-get install ripgrep\)/,
    );
    expect(gapMs).toBeLessThan(1_000);
  });

  it('answers a harmless search within the limit', async () => {
    const file = await workspace.write('fine.txt', 'one\ntwo\n');
    const request = contentSearch('tw.');
    const findings = await searchWithFallback(request, [{ path: file, shown: 'fine.txt' }], workspace.env, 10_000);
    expect(findings).toEqual({ files: [], lines: ['fine.txt:2:two'], truncated: false, skippedLarge: 0 });
  });
});
