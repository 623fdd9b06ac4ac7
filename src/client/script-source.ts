// The script a client runs: inline source, a file, or a saved script by name, checked before anything starts.
import os from 'node:os';
import path from 'node:path';
import { ErrorType, errorText } from '../shared/protocol/errors';
import { checkScript } from '../shared/scripts/script-check';
import type { CheckedScript } from '../shared/scripts/script-run';
import { findSavedScript, readScriptFile, savedScriptDirectories } from '../project/saved-scripts';

/** What `runWorkflow` runs: the source itself, a file, or a saved script of `.claude/workflows` by name. */
export type ScriptSource = string | { path: string } | { name: string };

/** The script was not found or failed its checks (header, syntax, size); the message says where and what to fix. */
export class ScriptRefused extends Error {
  override readonly name = 'ScriptRefused';
}

/** Reads (for a path or a name) and checks a script; throws ScriptRefused with the checker's `line:column` message. */
export async function resolveScript(
  source: ScriptSource,
  options: { cwd: string; homeDir?: string },
): Promise<CheckedScript> {
  const homeDir = options.homeDir ?? os.homedir();
  let text: string;
  let origin: CheckedScript['origin'];
  let file: string | undefined;
  try {
    if (typeof source === 'string') {
      text = source;
      origin = 'inline';
    } else if ('path' in source) {
      file = path.resolve(options.cwd, source.path);
      text = await readScriptFile(file);
      origin = 'path';
    } else {
      const found = await findSavedScript(source.name, { cwd: options.cwd, homeDir });
      if (!found) {
        const places = savedScriptDirectories(options.cwd, homeDir).map(({ dir }) => dir);
        throw new Error(
          errorText(
            ErrorType.ScriptNotFound,
            `no saved script "${source.name}": looked for ${source.name}.js in ${places.join(', ')}. Save it there or give its path.`,
          ),
        );
      }
      file = found.file;
      text = await readScriptFile(file);
      origin = found.origin;
    }
  } catch (error) {
    throw new ScriptRefused((error as Error).message);
  }
  const checked = checkScript(text, origin, file);
  // The checker's `line:column` is in this file.
  if (!checked.ok) throw new ScriptRefused(file ? `${file}: ${checked.error}` : checked.error);
  return checked.script;
}
