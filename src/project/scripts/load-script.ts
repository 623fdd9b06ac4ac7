// The one way a script is found, read and checked, for the Workflow tool, `workflow()`, the client and the CLI.
import path from 'node:path';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import { checkScript } from '../../shared/scripts/script-check';
import type { CheckedScript } from '../../shared/scripts/script-run';
import { allowedScriptRoots, findSavedScript, savedScriptNameProblem, type ScriptLookup } from './saved-scripts';
import { readScriptFile } from './script-files';

/** A script by its source, its file (resolved against the lookup's cwd), or a saved script's name. */
export type ScriptRequest = { source: string } | { path: string } | { name: string };

/** A script ready to run, or why not (an error text of the vocabulary); `file` names the file whose checks failed. */
export type LoadedScript = { ok: true; script: CheckedScript } | { ok: false; error: string; file?: string };

/** Names of saved scripts shown in a not-found error. */
const maxNamesShown = 20;

/** Reads (for a path or a name) and checks a script; a file path may be read only within the lookup's reach. */
export async function loadScript(request: ScriptRequest, lookup: ScriptLookup): Promise<LoadedScript> {
  if ('source' in request) return checkScript(request.source, 'inline');
  if ('path' in request) {
    const file = path.resolve(lookup.cwd, request.path);
    const read = await readScriptFile(file, await allowedScriptRoots(lookup), request.path);
    if (!read.ok) return read;
    const checked = checkScript(read.source, 'path', file);
    return checked.ok ? checked : { ...checked, file };
  }
  const { name } = request;
  const problem = savedScriptNameProblem(name);
  if (problem) return { ok: false, error: errorText(ErrorType.ScriptNotFound, problem) };
  const found = await findSavedScript(name, lookup);
  if (found.script) return { ok: true, script: found.script };
  const refused = found.refused.map((reason) => `Refused ${reason} `).join('');
  const shown = found.available.slice(0, maxNamesShown).join(', ');
  const available =
    found.available.length === 0
      ? 'There are no saved scripts.'
      : `Saved scripts: ${shown}${found.available.length > maxNamesShown ? ', ...' : ''}.`;
  return {
    ok: false,
    error: errorText(
      ErrorType.ScriptNotFound,
      `no saved script named "${name}" in ${found.searched.join(', ')}. ${refused}${available} ` +
        "Give a saved script's name, a script's path or its source, or save it as .claude/workflows/<name>.js.",
    ),
  };
}
