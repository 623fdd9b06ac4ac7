// Agents of installed Claude Code plugins, named `<plugin>:<agent>` (docs/agent-definitions.md, plugins).
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { DefinitionReport } from '../../shared/agents/agent-definition';
import { compareText } from './discover';
import { certainlyMissing } from '../certainly-missing';
import { isInside } from '../paths';

/** One installed plugin's agents directory. */
export interface PluginAgentsDirectory {
  plugin: string;
  dir: string;
}

const installSchema = z.object({
  scope: z.string().optional(),
  installPath: z.string().min(1),
  projectPath: z.string().optional(),
});

const installedSchema = z.object({
  plugins: z.record(z.string(), z.array(installSchema)),
});

/** Where the list of installed plugins is. */
export function installedPluginsFile(homeDir: string): string {
  return path.join(homeDir, '.claude', 'plugins', 'installed_plugins.json');
}

/** The plugin's name: its `.claude-plugin/plugin.json` name, else the id before `@`. */
async function pluginName(installPath: string, id: string): Promise<string> {
  const manifest = await fs
    .readFile(path.join(installPath, '.claude-plugin', 'plugin.json'), 'utf8')
    .catch(() => undefined);
  if (manifest !== undefined) {
    try {
      const name = (JSON.parse(manifest) as { name?: unknown }).name;
      if (typeof name === 'string' && /^[A-Za-z0-9._-]+$/.test(name)) return name;
    } catch {
      // A broken manifest falls back to the id.
    }
  }
  return id.split('@')[0] ?? id;
}

/** The agents directories of the plugins installed for `cwd`, sorted by plugin name; problems as reports. */
export async function installedPluginAgentDirectories(
  homeDir: string,
  cwd: string,
): Promise<{ directories: PluginAgentsDirectory[]; problems: DefinitionReport[] }> {
  const file = installedPluginsFile(homeDir);
  const text = certainlyMissing(file) ? undefined : await fs.readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return { directories: [], problems: [] };
  const problem = (message: string) => ({ directories: [], problems: [{ file, level: 'warning' as const, message }] });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return problem(`invalid JSON (${(error as Error).message}); no plugin agents are loaded`);
  }
  const parsed = installedSchema.safeParse(json);
  if (!parsed.success)
    return problem(
      `not a list of installed plugins (${parsed.error.issues[0]?.message ?? 'unexpected shape'}); no plugin agents are loaded`,
    );
  const directories: PluginAgentsDirectory[] = [];
  const problems: DefinitionReport[] = [];
  for (const [id, installs] of Object.entries(parsed.data.plugins)) {
    const install =
      installs.find((entry) => entry.scope !== 'project' && entry.scope !== 'local') ??
      installs.find((entry) => entry.projectPath && isInside(path.resolve(cwd), path.resolve(entry.projectPath)));
    if (!install) continue;
    const installPath = path.resolve(
      install.installPath.startsWith('~/') ? path.join(homeDir, install.installPath.slice(2)) : install.installPath,
    );
    const stats = await fs.stat(installPath).catch(() => undefined);
    if (!stats?.isDirectory()) {
      problems.push({
        file,
        level: 'warning',
        message: `plugin "${id}": its installPath ${installPath} is not a directory; its agents are not loaded`,
      });
      continue;
    }
    directories.push({ plugin: await pluginName(installPath, id), dir: path.join(installPath, 'agents') });
  }
  return { directories: directories.sort((left, right) => compareText(left.plugin, right.plugin)), problems };
}
