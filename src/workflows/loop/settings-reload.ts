// Settings re-read at a root's turn boundaries (docs/hooks.md, "Where hooks are configured"); the activity's result is the record.
import { isCancellation, log } from '@temporalio/workflow';
import type { LocalActivityOptions } from '@temporalio/workflow';
import type { SettingsReloadResult } from '../../activities/settings-reload';
import type { TreeSettings } from '../../shared/agents/tree-settings';
import { localSetupActivities, setupActivities } from '../runtime/activity-proxies';
import { routedOptions } from '../tools/workspace-activities';
import { runHooks } from '../tools/hooks';
import type { AgentParts } from './agent-parts';

// A few stats, a read when they changed: short, and safe to run again.
const reloadOptions: LocalActivityOptions = { startToCloseTimeout: '1 minute', retry: { maximumAttempts: 3 } };

// Per run: the stamps the last look saw (a new run looks afresh and compares what it loads).
const lastStamps = new WeakMap<object, Record<string, string>>();

/** What a re-read changes: nothing, a refusal (the old settings stay), or new settings and the files that changed. */
export type SettingsReloadDecision =
  | { type: 'unchanged' }
  | { type: 'invalid'; notice: string }
  | { type: 'changed'; settings: TreeSettings; files: string[]; notices: string[] };

const effective = (settings: TreeSettings): string =>
  JSON.stringify([settings.projectDir, settings.hooks ?? null, settings.permissions ?? null, settings.sandbox ?? null]);

/** Decides what a re-read means for the settings in force (pure). `previous`: the stamps the last look saw. */
export function decideSettingsReload(
  current: TreeSettings,
  result: SettingsReloadResult,
  previous: Record<string, string> | undefined,
): SettingsReloadDecision {
  const reloaded = result.reloaded;
  if (!reloaded) return { type: 'unchanged' };
  if (reloaded.invalid.length > 0)
    return {
      type: 'invalid',
      notice: `settings changed but were not re-read, the previous ones stay: ${reloaded.invalid.join('; ')}`,
    };
  if (effective(reloaded.settings) === effective(current)) return { type: 'unchanged' };
  const files = previous
    ? Object.keys(result.stamps).filter((key) => key !== 'project' && result.stamps[key] !== previous[key])
    : reloaded.settings.files;
  return {
    type: 'changed',
    settings: reloaded.settings,
    files,
    notices: (reloaded.settings.problems ?? []).map((problem) => `settings re-read: ${problem}`),
  };
}

/** Whether this agent looks at its settings files between turns: a root whose settings configured something. */
export function settingsReloadApplies(agent: Pick<AgentParts, 'input' | 'state'>): boolean {
  return agent.input.parentAgentId === undefined && agent.state.settings !== undefined && agent.state.turn > 0;
}

function reloadOn(agent: Pick<AgentParts, 'input' | 'state'>): Promise<SettingsReloadResult> {
  const { input, state } = agent;
  const request = { cwd: state.cwd, ...(lastStamps.has(state) ? { known: lastStamps.get(state)! } : {}) };
  const summary = 'look at the settings files';
  const worker = input.workspaceWorker;
  if (!worker) return localSetupActivities.reloadSettings.executeWithOptions({ ...reloadOptions, summary }, [request]);
  return setupActivities.reloadSettings.executeWithOptions({ ...routedOptions(reloadOptions, worker), summary }, [
    request,
  ]);
}

/** At a turn boundary: re-reads changed settings, runs ConfigChange hooks (which may refuse), applies them from this turn. */
export async function reloadSettingsAtTurn(agent: AgentParts): Promise<void> {
  const { input, state } = agent;
  const current = state.settings;
  if (!current) return;
  let result: SettingsReloadResult;
  try {
    result = await reloadOn(agent);
  } catch (error) {
    if (isCancellation(error)) throw error;
    state.hooks.recordNotice(`settings not re-read: ${(error as Error).message}`);
    return;
  }
  const previous = lastStamps.get(state);
  lastStamps.set(state, result.stamps);
  const decision = decideSettingsReload(current, result, previous);
  if (decision.type === 'unchanged') return;
  if (decision.type === 'invalid') {
    state.hooks.recordNotice(decision.notice);
    log.warn(`${input.agentId}: ${decision.notice}`);
    return;
  }
  // ConfigChange hooks in force before the change see each file and may keep it out (Claude Code's `decision: "block"`).
  for (const file of decision.files) {
    const source = result.sources[file] ?? 'project_settings';
    const verdict = await runHooks(agent, 'ConfigChange', source, { source, file_path: file });
    if (verdict?.blocked) {
      const notice = `settings change in ${file} refused by a ConfigChange hook${verdict.reason ? `: ${verdict.reason}` : ''}; the previous settings stay`;
      state.hooks.recordNotice(notice);
      log.warn(`${input.agentId}: ${notice}`);
      return;
    }
  }
  for (const notice of decision.notices) state.hooks.recordNotice(notice);
  state.replaceSettings(decision.settings);
  log.info(`${input.agentId}: settings re-read (${decision.files.join(', ')}); they apply from this turn`);
}
