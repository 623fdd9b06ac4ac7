// Settings re-read at turn boundaries (docs/hooks.md, "Where hooks are configured"): a cheap look at the files, a load when they changed.
import { statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { ConfigChangeSource } from '../shared/policy/hooks';
import type { SettingsLookRequest, SettingsReloadInput, SettingsReloadResult } from '../shared/agents/settings-look';
import { findProjectDir, loadProjectSettings } from '../project/settings/project-settings';

export type { SettingsReloadInput, SettingsReloadResult } from '../shared/agents/settings-look';

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

// Synchronous and non-throwing: a few µs a file against ~40 µs of CPU for a rejected fs.promises.stat (see findProjectDir).
function stampOf(file: string): string {
  try {
    const stat = statSync(file, { throwIfNoEntry: false });
    return stat ? `${stat.mtimeMs}:${stat.ctimeMs}:${stat.size}` : 'absent';
  } catch {
    return 'absent';
  }
}

const sameStamps = (left: Record<string, string>, right: Record<string, string> | undefined): boolean =>
  right !== undefined &&
  Object.keys(left).length === Object.keys(right).length &&
  Object.entries(left).every(([file, stamp]) => right[file] === stamp);

const hashOf = (stamps: Record<string, string>): string =>
  createHash('sha256')
    .update(JSON.stringify(Object.entries(stamps).sort(([left], [right]) => (left < right ? -1 : 1))))
    .digest('base64url')
    .slice(0, 16);

/** Stats three files (and the project's ancestors); reads and parses them only when one changed. */
async function look(cwd: string, homeDir: string, unchanged: (stamps: Record<string, string>) => boolean) {
  const { projectDir, sources } = await settingsFiles(cwd, homeDir);
  const files = Object.keys(sources);
  const stamps: Record<string, string> = { project: projectDir };
  for (const file of files) stamps[file] = stampOf(file);
  if (unchanged(stamps)) return { stamps, sources };
  const settings = await loadProjectSettings(cwd, homeDir);
  // A file there but not read is one Claude Code would refuse too; its sentence names it and the fix.
  const broken = files.filter((file) => stamps[file] !== 'absent' && !settings.files.includes(file));
  const invalid = broken.map(
    (file) =>
      (settings.problems ?? []).find((problem) => problem.startsWith(`${file}:`)) ?? `${file}: could not be read`,
  );
  return { stamps, sources, reloaded: { settings, invalid } };
}

/** Creates `reloadSettings`: stats three files each turn; reads and parses them only when one changed. */
export function createSettingsReloadActivities(homeDir = os.homedir()) {
  return {
    async reloadSettings(input: SettingsReloadInput): Promise<SettingsReloadResult> {
      return look(input.cwd, homeDir, (stamps) => sameStamps(stamps, input.known));
    },
  };
}

/** The same look, run inside a turn's model call: nothing while the stamps hash to `knownHash`, so it adds nothing to the history. */
export function createSettingsLook(homeDir = os.homedir()) {
  return async (request: SettingsLookRequest): Promise<SettingsReloadResult | undefined> => {
    const result = await look(request.cwd, homeDir, (stamps) => hashOf(stamps) === request.knownHash);
    return result.reloaded ? { ...result, hash: hashOf(result.stamps) } : undefined;
  };
}
