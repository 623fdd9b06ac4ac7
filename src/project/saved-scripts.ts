/** Saved orchestration scripts for the client (docs/workflows.md): `.claude/workflows/<name>.js` of the project, then the user's. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { scriptMetaLimits, scriptNamePattern } from '../shared/scripts/script-check';
import { scriptLimits } from '../shared/scripts/script-run';

/** What is wrong with a saved script's name, or undefined. */
export function savedScriptNameProblem(name: string): string | undefined {
  // No separators or dots: the name picks one file in one directory.
  if (name.length <= scriptMetaLimits.maxNameChars && scriptNamePattern.test(name)) return undefined;
  return `"${name.slice(0, 100)}" is not a saved script name: use letters, digits, - and _ (the file .claude/workflows/<name>.js).`;
}

/** The `.claude/workflows` directories for `cwd`: cwd and its parents (nearest first, home's skipped), then home's. */
export function savedScriptDirectories(cwd: string, homeDir: string): { dir: string; origin: 'project' | 'user' }[] {
  const home = path.resolve(homeDir);
  const directories: { dir: string; origin: 'project' | 'user' }[] = [];
  let current = path.resolve(cwd);
  for (;;) {
    if (current !== home) directories.push({ dir: path.join(current, '.claude', 'workflows'), origin: 'project' });
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  directories.push({ dir: path.join(home, '.claude', 'workflows'), origin: 'user' });
  return directories;
}

/** The file of the saved script `name` nearest to `cwd`, or undefined; the name is checked first. */
export async function findSavedScript(
  name: string,
  options: { cwd: string; homeDir: string },
): Promise<{ file: string; origin: 'project' | 'user' } | undefined> {
  const problem = savedScriptNameProblem(name);
  if (problem) throw new Error(problem);
  for (const { dir, origin } of savedScriptDirectories(options.cwd, options.homeDir)) {
    const file = path.join(dir, `${name}.js`);
    const stats = await fs.stat(file).catch(() => undefined);
    if (stats?.isFile()) return { file, origin };
  }
  return undefined;
}

/** A script file's text; refuses what is not a regular file or is over scriptLimits.maxScriptBytes before reading it. */
export async function readScriptFile(file: string): Promise<string> {
  const stats = await fs.stat(file).catch(() => undefined);
  if (!stats) throw new Error(`the script file ${file} does not exist.`);
  if (!stats.isFile()) throw new Error(`${file} is not a regular file; give a script file.`);
  if (stats.size > scriptLimits.maxScriptBytes)
    throw new Error(
      `the script file ${file} is ${stats.size} bytes; scripts are at most ${scriptLimits.maxScriptBytes} bytes.`,
    );
  return fs.readFile(file, 'utf8');
}
