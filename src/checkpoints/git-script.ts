/**
 * The git commands of one operation as one sh script run by the launcher (./launcher.ts), in its own subshell.
 * Arguments reach the script as positional parameters, never inside its text.
 */
import { GitCommandError, type GitContext } from './git-command';
import { launch } from './launcher';

/**
 * Every script stops at the first failing command and frames its output in sections: `\0\0name\0\0` then the body.
 * Bodies never hold two NULs in a row (git's -z lists have no empty fields), so the framing is unambiguous.
 */
const prelude = `set -e
section() { printf '\\0\\0%s\\0\\0' "$1"; }
`;

/** Stages the whole work tree into the private index (GIT_INDEX_FILE). */
export const stageLine = 'git -c advice.addEmbeddedRepo=false add --all';

/** {@link stageLine}, then sets $tree to the index's tree. */
export const snapshotLines = `${stageLine}
tree=$(git write-tree)
`;

/** `git diff-tree` as FileChange lists are read from it. */
export const diffCommand = 'git diff-tree -r --name-status -z --no-renames';

/** The same list for a tree (the argument) against the staged private index. */
export const indexDiffCommand = 'git diff-index --cached --name-status -z --no-renames';

/** The sections of a script's output, by name. */
export type Sections = Map<string, string>;

export function parseSections(output: string): Sections {
  const sections: Sections = new Map();
  const parts = output.split(/\0\0([a-z-]+)\0\0/);
  for (let index = 1; index + 1 < parts.length; index += 2) sections.set(parts[index]!, parts[index + 1]!);
  return sections;
}

/** Runs `script` with `args` as $1, $2… through the launcher; rejects with GitCommandError (its stderr) when it fails. */
export async function runScript(
  context: GitContext,
  name: string,
  script: string,
  args: readonly string[],
): Promise<Sections> {
  const result = await launch({ cwd: context.cwd, env: context.env, script: prelude + script, args });
  if (result.code !== 0) throw new GitCommandError(['sh', name], result.code, result.stderr);
  return parseSections(result.stdout);
}
