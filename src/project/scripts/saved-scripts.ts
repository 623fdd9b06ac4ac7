// Saved scripts (docs/workflows.md): `.claude/workflows/*.js` from the cwd up to the workspace root (closest first), then
// the user's `~/.claude/workflows`. A script's name is its meta.name; the file name `<name>.js` is the convention.
import fs from 'node:fs/promises';
import path from 'node:path';
import { isInside } from '../paths';
import { checkScript, scriptMetaLimits, scriptNamePattern } from '../../shared/scripts/script-check';
import type { CheckedScript } from '../../shared/scripts/script-run';
import type { SavedScriptSummary } from '../../shared/scripts/script-sources';
import { readScriptFile, realDirectory, type ScriptFileRoots } from './script-files';

/** Where scripts are looked up, and which files may be read. */
export interface ScriptLookup {
  /** Saved scripts are looked up from here upward; a script path is resolved against it. */
  cwd: string;
  /** The upward search stops here. */
  workspaceRoot: string;
  /** Holds the user's `.claude/workflows`. */
  homeDir: string;
  /**
   * 'workspace' (default): files only inside the workspace root or the user's workflows directory, after symlinks (what a
   * model asks for); 'anywhere': any readable file (what a person asks for on the command line or through the client).
   */
  reach?: 'workspace' | 'anywhere';
}

/** Script files read per directory (more are skipped with a warning). */
export const maxSavedScriptsPerDirectory = 200;

/** One directory saved scripts are read from. */
export interface SavedScriptDirectory {
  directory: string;
  origin: 'project' | 'user';
}

/** What is wrong with a saved script's name, or undefined. */
export function savedScriptNameProblem(name: string): string | undefined {
  // No separators or dots: the name picks scripts of the workflows directories only.
  if (name.length <= scriptMetaLimits.maxNameChars && scriptNamePattern.test(name)) return undefined;
  return `"${name.slice(0, 100)}" is not a saved script name: use letters, digits, - and _ (the file .claude/workflows/<name>.js).`;
}

/** The user's saved-scripts directory. */
export function userWorkflowsDirectory(homeDir: string): string {
  return path.join(path.resolve(homeDir), '.claude', 'workflows');
}

/** The directories to look in, in precedence order: cwd's, each parent's up to the workspace root, then the user's. */
export function savedScriptDirectories(cwd: string, workspaceRoot: string, homeDir: string): SavedScriptDirectory[] {
  const root = path.resolve(workspaceRoot);
  const userDirectory = userWorkflowsDirectory(homeDir);
  const directories: SavedScriptDirectory[] = [];
  let current = path.resolve(cwd);
  // A cwd outside the root looks in its own directory only.
  const walkUp = isInside(current, root);
  for (;;) {
    const directory = path.join(current, '.claude', 'workflows');
    // A workspace at or above home reaches the user's directory: it counts as the user's.
    if (directory !== userDirectory) directories.push({ directory, origin: 'project' });
    const parent = path.dirname(current);
    if (!walkUp || current === root || parent === current) break;
    current = parent;
  }
  directories.push({ directory: userDirectory, origin: 'user' });
  return directories;
}

/** The scripts of one directory that pass their checks, by name, a warning per file skipped, and why files were refused. */
export async function readSavedScriptDirectory(
  { directory, origin }: SavedScriptDirectory,
  allowedRoots: ScriptFileRoots,
): Promise<{ scripts: Map<string, CheckedScript>; warnings: string[]; refused: Map<string, string> }> {
  const scripts = new Map<string, CheckedScript>();
  const warnings: string[] = [];
  const refused = new Map<string, string>();
  const entries = await fs.readdir(directory, { withFileTypes: true }).catch(() => []);
  const files = entries
    .filter((entry) => entry.name.endsWith('.js') && !entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  if (files.length > maxSavedScriptsPerDirectory)
    warnings.push(
      `${directory}: ${files.length} scripts; only the first ${maxSavedScriptsPerDirectory} by file name are read.`,
    );
  for (const fileName of files.slice(0, maxSavedScriptsPerDirectory)) {
    const file = path.join(directory, fileName);
    const read = await readScriptFile(file, allowedRoots);
    const checked = read.ok ? checkScript(read.source, origin, file) : read;
    if (!checked.ok) {
      warnings.push(`${file} skipped: ${checked.error}`);
      refused.set(file, checked.error);
      continue;
    }
    const { name } = checked.script.meta;
    const other = scripts.get(name);
    // Two files with one name: the one named `<name>.js` wins, else the first by file name.
    if (other) {
      const winner = fileName === `${name}.js` ? checked.script : other;
      const loser = winner === other ? file : other.path;
      scripts.set(name, winner);
      warnings.push(`${loser} skipped: ${winner.path} also declares the name "${name}".`);
      continue;
    }
    if (fileName !== `${name}.js`)
      warnings.push(`${file} declares the name "${name}": it is found by that name; rename the file to ${name}.js.`);
    scripts.set(name, checked.script);
  }
  return { scripts, warnings, refused };
}

/** Where script files may really be (after symlinks): the workspace and the user's workflows directory, or anywhere. */
export async function allowedScriptRoots(lookup: ScriptLookup): Promise<ScriptFileRoots> {
  if (lookup.reach === 'anywhere') return 'anywhere';
  return [await realDirectory(lookup.workspaceRoot), await realDirectory(userWorkflowsDirectory(lookup.homeDir))];
}

/** Every saved script by name: the closest project directory wins, then farther ones, then the user's. */
export async function listSavedScripts(
  input: ScriptLookup,
): Promise<{ scripts: SavedScriptSummary[]; warnings: string[] }> {
  const allowedRoots = await allowedScriptRoots(input);
  const found = new Map<string, SavedScriptSummary>();
  const warnings: string[] = [];
  for (const directory of savedScriptDirectories(input.cwd, input.workspaceRoot, input.homeDir)) {
    const read = await readSavedScriptDirectory(directory, allowedRoots);
    warnings.push(...read.warnings);
    for (const [name, script] of read.scripts) {
      const closer = found.get(name);
      if (closer) {
        warnings.push(`${script.path} is shadowed by ${closer.path}, which has the same name "${name}".`);
        continue;
      }
      found.set(name, summaryOf(script, directory.origin));
    }
  }
  const scripts = [...found.values()].sort((left, right) => left.name.localeCompare(right.name));
  return { scripts, warnings };
}

/** What a search for a saved script that found none saw. */
export interface SavedScriptMiss {
  script: undefined;
  /** The directories looked in, closest first. */
  searched: string[];
  /** The names that are there. */
  available: string[];
  /** Why each `<name>.js` found was refused (`<file>: <error>`), closest first. */
  refused: string[];
}

/** The saved script `name` closest to the cwd, or what the search saw. */
export async function findSavedScript(
  name: string,
  input: ScriptLookup,
): Promise<{ script: CheckedScript } | SavedScriptMiss> {
  const allowedRoots = await allowedScriptRoots(input);
  const directories = savedScriptDirectories(input.cwd, input.workspaceRoot, input.homeDir);
  const available = new Set<string>();
  const refusedFiles: string[] = [];
  for (const directory of directories) {
    const { scripts, refused } = await readSavedScriptDirectory(directory, allowedRoots);
    const script = scripts.get(name);
    if (script) return { script };
    for (const other of scripts.keys()) available.add(other);
    const file = path.join(directory.directory, `${name}.js`);
    const error = refused.get(file);
    if (error !== undefined) refusedFiles.push(`${file}: ${error}`);
  }
  return {
    script: undefined,
    searched: directories.map((entry) => entry.directory),
    available: [...available].sort(),
    refused: refusedFiles,
  };
}

function summaryOf(script: CheckedScript, origin: 'project' | 'user'): SavedScriptSummary {
  const summary: SavedScriptSummary = {
    name: script.meta.name,
    description: script.meta.description,
    origin,
    path: script.path ?? '',
  };
  if (script.meta.whenToUse !== undefined) summary.whenToUse = script.meta.whenToUse;
  return summary;
}
