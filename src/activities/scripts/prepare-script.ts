// The script a run executes, from its source, a saved script's name, or a file; checked before anything starts.
import path from 'node:path';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import { checkScript, scriptNamePattern } from '../../shared/scripts/script-check';
import type { PrepareScriptInput, PrepareScriptResult } from '../../shared/scripts/script-sources';
import { allowedScriptRoots, findSavedScript } from './saved-scripts';
import { readScriptFile } from './script-files';

/** Names of saved scripts shown in a not-found error. */
const maxNamesShown = 20;

/** Reads and checks the script of a run: `scriptPath` wins over the others (as in Claude Code), else `script` or `name`. */
export async function prepareScript(input: PrepareScriptInput, homeDir: string): Promise<PrepareScriptResult> {
  const { script, name, scriptPath, cwd, workspaceRoot } = input;
  if (scriptPath !== undefined) {
    const file = path.resolve(cwd, scriptPath);
    const read = await readScriptFile(file, await allowedScriptRoots(workspaceRoot, homeDir), scriptPath);
    if (!read.ok) return read;
    return checkScript(read.source, 'path', file);
  }
  if (script !== undefined && name !== undefined)
    return invalid('give either script (the source) or name (a saved script), not both.');
  if (script !== undefined) return checkScript(script, 'inline');
  if (name === undefined)
    return invalid('give one of script (the source), name (a saved script) or scriptPath (a file).');
  if (!scriptNamePattern.test(name))
    return invalid(`"${name.slice(0, 100)}" is not a script name: names have letters, digits, - and _ only.`);
  const found = await findSavedScript(name, { cwd, workspaceRoot, homeDir });
  if (found.script) return { ok: true, script: found.script };
  const available =
    found.available.length === 0
      ? 'There are no saved scripts.'
      : `Saved scripts: ${found.available.slice(0, maxNamesShown).join(', ')}${found.available.length > maxNamesShown ? ', ...' : ''}.`;
  return {
    ok: false,
    error: errorText(
      ErrorType.ScriptNotFound,
      `no saved script named "${name}" in ${found.searched.join(', ')}. ${available} ` +
        'Give a saved name, pass the script inline, or save it as .claude/workflows/<name>.js.',
    ),
  };
}

function invalid(detail: string): { ok: false; error: string } {
  return { ok: false, error: errorText(ErrorType.InvalidToolInput, `Workflow: ${detail}`) };
}
