// The script a client runs: inline source, a file, or a saved script by name, checked before anything starts.
import os from 'node:os';
import path from 'node:path';
import type { CheckedScript } from '../shared/scripts/script-run';
import { loadScript, type ScriptRequest } from '../project/scripts/load-script';

/** What `runWorkflow` runs: the source itself, a file, or a saved script of `.claude/workflows` by name. */
export type ScriptSource = string | { path: string } | { name: string };

/** The script was not found or failed its checks (header, syntax, size); the message says where and what to fix. */
export class ScriptRefused extends Error {
  override readonly name = 'ScriptRefused';
}

/**
 * Reads (for a path or a name) and checks a script as the Workflow tool does; throws ScriptRefused with its error text.
 * Two differences, for a person's own command: a path may name any readable file (a model's stays in its workspace),
 * and saved scripts are looked up from `cwd` up to the filesystem's root (a client run has no workspace above its cwd).
 */
export async function resolveScript(
  source: ScriptSource,
  options: { cwd: string; homeDir?: string },
): Promise<CheckedScript> {
  const cwd = path.resolve(options.cwd);
  const request: ScriptRequest = typeof source === 'string' ? { source } : source;
  const loaded = await loadScript(request, {
    cwd,
    workspaceRoot: path.parse(cwd).root,
    homeDir: options.homeDir ?? os.homedir(),
    reach: 'anywhere',
  });
  if (loaded.ok) return loaded.script;
  // The checker's `line:column` is in this file.
  throw new ScriptRefused(loaded.file ? `${loaded.file}: ${loaded.error}` : loaded.error);
}
