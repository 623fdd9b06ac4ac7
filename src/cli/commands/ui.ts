import { parseArgs } from 'node:util';
import { loadTemporalConnectionConfig } from '../../config/connection-config';
import { defaultUiPort } from '../../shared/protocol/config';
import { CliError } from '../exit-codes';

const usage = 'usage: subagents ui <agentId> [--run RUN_ID] [--namespace NS]';

/** Base URL of the Temporal UI: SUBAGENTS_UI_URL, else the dev server's UI on this machine. */
export function uiBaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.SUBAGENTS_UI_URL?.trim() || `http://127.0.0.1:${defaultUiPort}`;
  return base.replace(/\/+$/, '');
}

/** The UI page of an agent's workflow: its latest run, or one run's history when runId is given. */
export function agentUiUrl(options: { baseUrl: string; namespace: string; agentId: string; runId?: string }): string {
  const workflow = `${options.baseUrl}/namespaces/${encodeURIComponent(options.namespace)}/workflows/${encodeURIComponent(options.agentId)}`;
  return options.runId ? `${workflow}/${encodeURIComponent(options.runId)}/history` : workflow;
}

/** `subagents ui <agentId>`: prints the run's Temporal UI URL without contacting Temporal. */
export async function uiCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { run: { type: 'string' }, namespace: { type: 'string' } },
    });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n${usage}`);
  }
  const [agentId, ...extra] = parsed.positionals;
  if (!agentId || extra.length > 0) throw new CliError(`give exactly one agentId.\n${usage}`);
  let namespace = parsed.values.namespace;
  if (!namespace) {
    try {
      namespace = loadTemporalConnectionConfig({ env }).namespace;
    } catch (error) {
      throw new CliError((error as Error).message);
    }
  }
  console.log(agentUiUrl({ baseUrl: uiBaseUrl(env), namespace, agentId, runId: parsed.values.run }));
  return 0;
}
