// Settings re-read at turn boundaries (docs/hooks.md, "Where hooks are configured"): a cheap look at the files, a load when they changed.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TreeSettings } from '../shared/agents/tree-settings';
import type { ConfigChangeSource } from '../shared/policy/hooks';
import { findProjectDir, loadProjectSettings } from '../project/settings/project-settings';

/** Input of `reloadSettings`: the agent's cwd, and the stamps its last look saw (none: load whatever is there). */
export interface SettingsReloadInput {
  cwd: string;
  known?: Record<string, string>;
}

/** Stamps of the settings files now; with `reloaded` when they differ from `known`. The result is the history's record. */
export interface SettingsReloadResult {
  /** Settings file → `mtime:ctime:size`, or `absent`; also which project the files belong to. */
  stamps: Record<string, string>;
  /** Each settings file's ConfigChange `source`. */
  sources: Record<string, ConfigChangeSource>;
  reloaded?: {
    settings: TreeSettings;
    /** Sentences for files that exist but could not be read or parsed: the agent then keeps its old settings. */
    invalid: string[];
  };
}

/** The settings files Claude Code reads for `cwd` (user, project, local), as `loadProjectSettings` picks them. */
export async function settingsFiles(
  cwd: string,
  homeDir: string,
): Promise<{ projectDir: string; sources: Record<string, ConfigChangeSource> }> {
  const projectDir = await findProjectDir(cwd, homeDir);
  const sources: Record<string, ConfigChangeSource> = {
    [path.join(homeDir, '.claude', 'settings.json')]: 'user_settings',
  };
  if (path.resolve(projectDir) !== path.resolve(homeDir))
    sources[path.join(projectDir, '.claude', 'settings.json')] = 'project_settings';
  sources[path.join(projectDir, '.claude', 'settings.local.json')] = 'local_settings';
  return { projectDir, sources };
}

async function stampOf(file: string): Promise<string> {
  try {
    const stat = await fs.stat(file);
    return `${stat.mtimeMs}:${stat.ctimeMs}:${stat.size}`;
  } catch {
    return 'absent';
  }
}

const sameStamps = (left: Record<string, string>, right: Record<string, string> | undefined): boolean =>
  right !== undefined &&
  Object.keys(left).length === Object.keys(right).length &&
  Object.entries(left).every(([file, stamp]) => right[file] === stamp);

/** Creates `reloadSettings`: stats three files each turn; reads and parses them only when one changed. */
export function createSettingsReloadActivities(homeDir = os.homedir()) {
  return {
    async reloadSettings(input: SettingsReloadInput): Promise<SettingsReloadResult> {
      const { projectDir, sources } = await settingsFiles(input.cwd, homeDir);
      const files = Object.keys(sources);
      const stamps: Record<string, string> = { project: projectDir };
      for (const file of files) stamps[file] = await stampOf(file);
      if (sameStamps(stamps, input.known)) return { stamps, sources };
      const settings = await loadProjectSettings(input.cwd, homeDir);
      // A file there but not read is one Claude Code would refuse too; its sentence names it and the fix.
      const broken = files.filter((file) => stamps[file] !== 'absent' && !settings.files.includes(file));
      const invalid = broken.map(
        (file) =>
          (settings.problems ?? []).find((problem) => problem.startsWith(`${file}:`)) ?? `${file}: could not be read`,
      );
      return { stamps, sources, reloaded: { settings, invalid } };
    },
  };
}
