/**
 * What the OS sandbox adds to a Bash call: the same commands through the Bash tool with the sandbox
 * on and off, interleaved so both see the same minute of a noisy machine (docs/testing.md).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runBash } from '../../src/activities/tools/bash';
import { sandboxProblem, type SandboxOptions } from '../../src/config/sandbox-options';

/** Median milliseconds of a Bash call per command, sandboxed and not, and the difference. */
export interface SandboxTimes {
  available: boolean;
  problem?: string;
  calls: number;
  rows: { command: string; sandboxedMsP50: number; unconfinedMsP50: number; addedMsP50: number }[];
}

const commands = ['true', 'ls -la . | wc -l', 'for i in 1 2 3; do echo $i; done | sort -r'];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Times `calls` Bash calls of each command both ways, alternating. */
export async function measureSandboxTimes(calls: number): Promise<SandboxTimes> {
  const on: SandboxOptions = { mode: 'on', bwrap: process.env.SUBAGENTS_BWRAP ?? 'bwrap', hiddenFiles: [] };
  const off: SandboxOptions = { ...on, mode: 'off' };
  const problem = await sandboxProblem(on);
  if (problem) return { available: false, problem, calls, rows: [] };
  const workspace = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bench-sandbox-')));
  await fs.writeFile(path.join(workspace, 'file.txt'), 'x\n');
  const controller = new AbortController();
  const time = async (command: string, sandbox: SandboxOptions): Promise<number> => {
    const started = performance.now();
    const result = await runBash(
      {
        context: { agentId: 'bench', workspaceRoot: workspace, cwd: workspace },
        toolUseId: 'toolu_bench',
        input: { command },
      },
      { signal: controller.signal, heartbeat: () => undefined, shell: { sandbox } },
    );
    if (result.isError) throw new Error(`bench Bash call failed: ${result.content}`);
    return performance.now() - started;
  };
  try {
    const rows: SandboxTimes['rows'] = [];
    for (const command of commands) {
      await time(command, on);
      await time(command, off);
      const sandboxed: number[] = [];
      const unconfined: number[] = [];
      for (let index = 0; index < calls; index++) {
        sandboxed.push(await time(command, on));
        unconfined.push(await time(command, off));
      }
      const round = (value: number) => Number(value.toFixed(1));
      rows.push({
        command,
        sandboxedMsP50: round(median(sandboxed)),
        unconfinedMsP50: round(median(unconfined)),
        addedMsP50: round(median(sandboxed) - median(unconfined)),
      });
    }
    return { available: true, calls, rows };
  } finally {
    await fs.rm(workspace, { recursive: true, force: true });
  }
}
