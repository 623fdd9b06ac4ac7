import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { DefinitionReport } from '../../shared/agents/agent-definition';
import { certainlyMissing } from '../certainly-missing';

/** A `.claude/agents` directory to search, nearest project directory first, the user's last. */
export interface DefinitionDirectory {
  dir: string;
  source: 'user' | 'project' | 'plugin';
  /** The plugin whose agents these are: their names become `<plugin>:<name>`. */
  plugin?: string;
}

/** Locale-independent ordering, so results are the same on every machine. */
export function compareText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Project directories (cwd up to the root, home's excluded), then the user directory. */
export function definitionDirectories(cwd: string, homeDir: string): DefinitionDirectory[] {
  const home = path.resolve(homeDir);
  const directories: DefinitionDirectory[] = [];
  let current = path.resolve(cwd);
  for (;;) {
    if (current !== home) directories.push({ dir: path.join(current, '.claude', 'agents'), source: 'project' });
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  directories.push({ dir: path.join(home, '.claude', 'agents'), source: 'user' });
  return directories;
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** Every `*.md` file under `dir`, recursively and sorted; a missing directory has none. */
export async function findDefinitionFiles(dir: string): Promise<{ files: string[]; problems: DefinitionReport[] }> {
  const files: string[] = [];
  const problems: DefinitionReport[] = [];
  // Symlinked directories are followed once each: a link back up the tree must not loop.
  const visited = new Set<string>();

  async function walk(directory: string): Promise<void> {
    let entries: Dirent[];
    try {
      const real = await fs.realpath(directory);
      if (visited.has(real)) return;
      visited.add(real);
      entries = await fs.readdir(directory, { withFileTypes: true });
    } catch (error) {
      if (!isMissing(error))
        problems.push({
          file: directory,
          level: 'skipped',
          message: `cannot read the directory: ${(error as Error).message}`,
        });
      return;
    }
    for (const entry of entries) {
      const full = path.join(directory, entry.name);
      let isDirectory = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        const target = await fs.stat(full).catch(() => undefined);
        isDirectory = target?.isDirectory() ?? false;
        isFile = target?.isFile() ?? false;
      }
      if (isDirectory) await walk(full);
      else if (isFile && entry.name.endsWith('.md')) files.push(full);
    }
  }

  // Most searched directories do not exist, so no error is built; only the top one can be missing.
  if (certainlyMissing(dir)) return { files, problems };
  await walk(dir);
  return { files: files.sort(compareText), problems };
}
