/** Real temp workspaces and a plain ToolEnv for calling the tools' core functions directly. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ToolEnv } from '../../../src/activities/tools/tool-env';
import type { ReadFileState, ToolCallInput, ToolContext } from '../../../src/shared/tools/tools';

export interface TestWorkspace {
  /** Real path of the workspace root. */
  root: string;
  /** Real path of a sibling directory outside the workspace. */
  outside: string;
  resultsDir: string;
  env: ToolEnv & { heartbeats: unknown[] };
  abort: AbortController;
  call: (
    input: Record<string, unknown>,
    extra?: { readFileState?: ReadFileState; context?: Partial<ToolContext>; toolUseId?: string },
  ) => ToolCallInput;
  write: (relative: string, content: string | Buffer) => Promise<string>;
  cleanup: () => Promise<void>;
}

/** A fresh workspace `<tmp>/ws`, with `<tmp>/outside` and `<tmp>/results` beside it. */
export async function createTestWorkspace(options: { ripgrep?: string | false } = {}): Promise<TestWorkspace> {
  const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'tools-test-')));
  const root = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  const resultsDir = path.join(base, 'results');
  await fs.mkdir(root);
  await fs.mkdir(outside);
  const abort = new AbortController();
  const heartbeats: unknown[] = [];
  const env = {
    signal: abort.signal,
    heartbeat: (details?: unknown) => void heartbeats.push(details),
    resultsDir,
    ripgrep: options.ripgrep ?? false,
    heartbeats,
  };
  let callCount = 0;
  return {
    root,
    outside,
    resultsDir,
    env,
    abort,
    call: (input, extra = {}) => ({
      context: { agentId: 'agent-1', workspaceRoot: root, cwd: root, ...extra.context },
      toolUseId: extra.toolUseId ?? `toolu_${(callCount += 1)}`,
      input,
      ...(extra.readFileState ? { readFileState: extra.readFileState } : {}),
    }),
    write: async (relative, content) => {
      const file = path.join(root, relative);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, content);
      return file;
    },
    cleanup: () => fs.rm(base, { recursive: true, force: true }),
  };
}

/** Sets a file's mtime (seconds since the epoch), for ordering tests. */
export async function setMtime(file: string, seconds: number): Promise<void> {
  await fs.utimes(file, seconds, seconds);
}

/** True while the process exists and is not a zombie. */
export async function isProcessAlive(pid: number): Promise<boolean> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat !== undefined) return !/^\d+ \(.*\) Z /s.test(stat);
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
