/**
 * One `sh` process running the git commands of an operation. Forking the worker costs in proportion to its memory
 * (~30 ms at 50 MB, ~130 ms at 550 MB on a small VM under load), forking sh almost nothing: an operation forks the
 * worker once. Arguments reach the script as positional parameters, never inside its text.
 */
import { spawn } from 'node:child_process';
import { GitCommandError, type GitContext } from './git-command';

/**
 * Every script stops at the first failing command and frames its output in sections: `\0\0name\0\0` then the body.
 * Bodies never hold two NULs in a row (git's -z lists have no empty fields), so the framing is unambiguous.
 */
const prelude = `set -e
section() { printf '\\0\\0%s\\0\\0' "$1"; }
`;

/** Stages the whole work tree into the private index (GIT_INDEX_FILE) and sets $tree to its tree. */
export const snapshotLines = `git -c advice.addEmbeddedRepo=false add --all
tree=$(git write-tree)
`;

/** `git diff-tree` as FileChange lists are read from it. */
export const diffCommand = 'git diff-tree -r --name-status -z --no-renames';

/** The sections of a script's output, by name. */
export type Sections = Map<string, string>;

export function parseSections(output: string): Sections {
  const sections: Sections = new Map();
  const parts = output.split(/\0\0([a-z-]+)\0\0/);
  for (let index = 1; index + 1 < parts.length; index += 2) sections.set(parts[index]!, parts[index + 1]!);
  return sections;
}

/**
 * Runs `script` with `args` as $1, $2…; when it prints the `ask` section, `answer` gets the sections so far and what
 * it returns is the script's stdin (then closed). Rejects with GitCommandError (git's stderr) when the script fails.
 */
export function runScript(
  context: GitContext,
  name: string,
  script: string,
  args: readonly string[],
  answer?: (sections: Sections) => string | Promise<string>,
): Promise<Sections> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', prelude + script, name, ...args], {
      cwd: context.cwd,
      env: context.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    const stderr: Buffer[] = [];
    let asked = false;
    child.stdin.on('error', () => {}); // a script that exits without reading its stdin
    if (!answer) child.stdin.end();
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      if (!answer || asked || !stdout.includes('\0\0ask\0\0')) return;
      asked = true;
      const sections = parseSections(stdout);
      Promise.resolve()
        .then(() => answer(sections))
        .then(
          (reply) => child.stdin.end(reply),
          (error: unknown) => {
            child.kill();
            reject(error);
          },
        );
    });
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (!child.stdin.writableEnded) child.stdin.destroy();
      if (code === 0) resolve(parseSections(stdout));
      else reject(new GitCommandError(['sh', name], code, Buffer.concat(stderr).toString('utf8')));
    });
  });
}
