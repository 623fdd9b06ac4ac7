/** File listing through `rg --files`, configured to follow exactly the rules of the built-in walker. */
import type { LiveToolDetails } from '../../shared/protocol/live-activity';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { toolLimits } from '../../shared/tools/tool-definitions';
import { runtimeFolderName } from '../../project/runtime-output';
import type { ToolEnv } from './tool-env';
import { ToolCancelled } from './tool-error';

let ripgrepOnPath: Promise<string | undefined> | undefined;

/** The `rg` executable on PATH, looked up once per process. */
export function findRipgrep(): Promise<string | undefined> {
  ripgrepOnPath ??= (async () => {
    for (const directory of (process.env.PATH ?? '').split(path.delimiter)) {
      if (directory === '') continue;
      const candidate = path.join(directory, 'rg');
      const executable = await fs.access(candidate, fs.constants.X_OK).then(
        () => true,
        () => false,
      );
      if (executable) return candidate;
    }
    return undefined;
  })();
  return ripgrepOnPath;
}

/** The rg binary an environment asks for: undefined when there is none or `env.ripgrep` is false. */
export async function ripgrepOf(env: ToolEnv): Promise<string | undefined> {
  return env.ripgrep === false ? undefined : (env.ripgrep ?? (await findRipgrep()));
}

/** Which files rg visits (listing and Grep): hidden ones too, only .gitignore files count, also outside git. */
export const ripgrepWalkArguments: readonly string[] = [
  '--hidden',
  '--no-config',
  '--no-messages',
  '--null',
  '--no-require-git',
  '--no-ignore-global',
  '--no-ignore-exclude',
  '--no-ignore-dot',
];

/** Directories never visited (the walker's alwaysSkippedNames); given after any other --glob, since rg's last matching glob wins. */
export const ripgrepExcludedGlobs: readonly string[] = [
  '--glob',
  '!.git',
  '--glob',
  '!node_modules',
  '--glob',
  `!${runtimeFolderName}`,
];

const listArguments = ['--files', ...ripgrepWalkArguments, ...ripgrepExcludedGlobs];

/** Sorted relative paths of the files below `baseDir`, as listed by ripgrep. */
export async function listFilesWithRipgrep(ripgrep: string, baseDir: string, env: ToolEnv): Promise<string[]> {
  if (env.signal.aborted) throw new ToolCancelled();
  const output = await new Promise<Buffer>((resolve, reject) => {
    const child = spawn(ripgrep, listArguments, {
      cwd: baseDir,
      stdio: ['ignore', 'pipe', 'ignore'],
      signal: env.signal,
    });
    const chunks: Buffer[] = [];
    let filesListed = 0;
    const heartbeat = setInterval(
      () => env.heartbeat({ kind: 'tool', tool: 'Glob/Grep', filesListed } satisfies LiveToolDetails),
      toolLimits.heartbeatIntervalMs,
    );
    child.stdout.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      for (const byte of chunk) if (byte === 0) filesListed += 1;
    });
    child.on('error', (error) => {
      clearInterval(heartbeat);
      reject(env.signal.aborted ? new ToolCancelled() : error);
    });
    child.on('close', (code) => {
      clearInterval(heartbeat);
      // 1: nothing listed; 2: some entries were unreadable, the rest is still valid.
      if (code === 0 || code === 1 || code === 2) resolve(Buffer.concat(chunks));
      else reject(env.signal.aborted ? new ToolCancelled() : new Error(`rg --files exited with code ${code}`));
    });
  });
  const files = output
    .toString('utf8')
    .split('\0')
    .filter((file) => file !== '')
    .map((file) => (file.startsWith('./') ? file.slice(2) : file).split(path.sep).join('/'));
  return files.sort();
}
