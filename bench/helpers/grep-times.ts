/** Grep's time on this repository against plain `rg` with the same search arguments (bench:grep, bench:overhead). */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { runGrep } from '../../src/activities/tools/grep';
import type { GrepRequest } from '../../src/activities/tools/grep-findings';
import { ripgrepArguments } from '../../src/activities/tools/grep-ripgrep';
import { findRipgrep } from '../../src/activities/tools/ripgrep';
import { toolLimits } from '../../src/shared/tools/tool-definitions';
import { medianOf } from './task-times';
import { ms } from './wait';

/** The searches measured: a few patterns, in files and content modes. */
const searches: { pattern: string; mode: GrepRequest['mode'] }[] = [
  { pattern: 'defineTool', mode: 'files_with_matches' },
  { pattern: 'ErrorType\\.\\w+', mode: 'files_with_matches' },
  { pattern: 'async function \\w+', mode: 'content' },
  { pattern: 'TODO|FIXME', mode: 'content' },
];

export interface GrepTimes {
  grepMsP50: number;
  plainRgMsP50: number;
  rows: { search: string; grepMs: number; plainRgMs: number }[];
}

/** Median of `runs` timings per search, Grep (the tool function, as the worker runs it) and rg alone, interleaved. */
export async function measureGrep(root: string, runs = 10): Promise<GrepTimes | undefined> {
  const ripgrep = await findRipgrep();
  if (!ripgrep) return undefined;
  const realRoot = await fs.realpath(root);
  const env = { signal: new AbortController().signal, heartbeat: () => {}, ripgrep };
  const rows: GrepTimes['rows'] = [];
  const allGrep: number[] = [];
  const allPlain: number[] = [];
  for (const [index, search] of searches.entries()) {
    const request: GrepRequest = {
      ...search,
      ignoreCase: false,
      multiline: false,
      before: 0,
      after: 0,
      lineNumbers: true,
      cap: toolLimits.grepDefaultMaxEntries,
    };
    const args = ripgrepArguments(request, { target: '.', globs: [], extensions: undefined });
    const grepTimes: number[] = [];
    const plainTimes: number[] = [];
    for (let run = 0; run < runs; run += 1) {
      const call = {
        context: { agentId: 'bench', workspaceRoot: realRoot, cwd: realRoot },
        toolUseId: `toolu_bench_${index}_${run}`,
        input: { pattern: search.pattern, output_mode: search.mode },
      };
      let started = performance.now();
      const result = await runGrep(call, env);
      grepTimes.push(performance.now() - started);
      if (result.isError) throw new Error(`Grep failed: ${result.content}`);
      started = performance.now();
      await runToEnd(ripgrep, args, realRoot);
      plainTimes.push(performance.now() - started);
    }
    rows.push({
      search: `${search.mode} ${search.pattern}`,
      grepMs: ms(medianOf(grepTimes)),
      plainRgMs: ms(medianOf(plainTimes)),
    });
    allGrep.push(...grepTimes);
    allPlain.push(...plainTimes);
  }
  return { grepMsP50: ms(medianOf(allGrep)), plainRgMsP50: ms(medianOf(allPlain)), rows };
}

/** rg with its output read and dropped, as a shell pipeline would. */
function runToEnd(ripgrep: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(ripgrep, args, { cwd: path.resolve(cwd), stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.resume();
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}
