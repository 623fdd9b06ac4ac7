// The Workflow tool's choice of script source (as in Claude Code); finding, reading and checking is src/project/scripts/.
import { ErrorType, errorText } from '../../shared/protocol/errors';
import type { PrepareScriptInput, PrepareScriptResult } from '../../shared/scripts/script-sources';
import { loadScript, type ScriptRequest } from '../../project/scripts/load-script';

/** Reads and checks the script of a run: `scriptPath` wins over the others (as in Claude Code), else `script` or `name`. */
export async function prepareScript(input: PrepareScriptInput, homeDir: string): Promise<PrepareScriptResult> {
  const { script, name, scriptPath, cwd, workspaceRoot } = input;
  let request: ScriptRequest;
  if (scriptPath !== undefined) request = { path: scriptPath };
  else if (script !== undefined && name !== undefined)
    return invalid('give either script (the source) or name (a saved script), not both.');
  else if (script !== undefined) request = { source: script };
  else if (name !== undefined) request = { name };
  else return invalid('give one of script (the source), name (a saved script) or scriptPath (a file).');
  // A model's paths stay inside the workspace and the user's workflows directory.
  const loaded = await loadScript(request, { cwd, workspaceRoot, homeDir, reach: 'workspace' });
  return loaded.ok ? loaded : { ok: false, error: loaded.error };
}

function invalid(detail: string): { ok: false; error: string } {
  return { ok: false, error: errorText(ErrorType.InvalidToolInput, `Workflow: ${detail}`) };
}
