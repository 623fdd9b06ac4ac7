// Settings re-read at a root's turn boundaries (docs/hooks.md, "Where hooks are configured"); the activity's result is the record.
import { defineSignal, isCancellation, log, setHandler } from '@temporalio/workflow';
import type { LocalActivityOptions } from '@temporalio/workflow';
import type { AgentWorkflowInput } from '../../shared/agents/agent';
import type { SettingsLookRequest, SettingsReloadResult } from '../../shared/agents/settings-look';
import type { TreeSettings } from '../../shared/agents/tree-settings';
import type { ModelCallResult } from '../../shared/model/model-call';
import { settingsPushSchema } from '../../shared/protocol/input-schemas';
import { localSetupActivities, setupActivities } from '../runtime/activity-proxies';
import { signalBestEffort } from '../runtime/best-effort-signal';
import { routedOptions } from '../tools/workspace-activities';
import { runHooks } from '../tools/hooks';
import type { AgentParts } from './agent-parts';

// A few stats, a read when they changed: short, and safe to run again.
const reloadOptions: LocalActivityOptions = { startToCloseTimeout: '1 minute', retry: { maximumAttempts: 3 } };

/** A parent's re-read settings, pushed down the tree so running subagents take them (one settings per session). */
export interface SettingsPush {
  settings: TreeSettings;
}

/** Sent by a root that applied re-read settings to its running children, and by each child on to its own. */
export const settingsChangedSignal = defineSignal<[SettingsPush]>('settingsChanged');

/**
 * How a root looks, fixed at its run's first boundary: one whose files configured something at the start keeps
 * the `reloadSettings` activity its recorded runs took (on the workspace worker when its files are there), as
 * does one whose input asks for it (`watchSettings`: a root placed on a workspace worker, whose model call runs
 * elsewhere); one without settings looks inside its turn's model call (no event while nothing changed); a placed
 * one without settings whose input predates `watchSettings` does not look (its recorded runs took no activity).
 */
export type SettingsWatch = 'activity' | 'model-call' | 'none';

// Per run: how it looks, the stamps the last look saw and their hash (a new run looks afresh and compares what it loads).
const watches = new WeakMap<object, SettingsWatch>();
const lastStamps = new WeakMap<object, Record<string, string>>();
const lastHashes = new WeakMap<object, string>();

/** What a re-read changes: nothing, a refusal (the old settings stay), or new settings and the files that changed. */
export type SettingsReloadDecision =
  | { type: 'unchanged' }
  | { type: 'invalid'; notice: string }
  | { type: 'changed'; settings: TreeSettings; files: string[]; notices: string[] };

const configures = (settings: TreeSettings): boolean =>
  settings.hooks !== undefined || settings.permissions !== undefined || settings.sandbox !== undefined;

const effective = (settings: TreeSettings): string =>
  JSON.stringify([settings.projectDir, settings.hooks ?? null, settings.permissions ?? null, settings.sandbox ?? null]);

/** Decides what a re-read means for the settings in force (pure; none in force: the files configured nothing). */
export function decideSettingsReload(
  current: TreeSettings | undefined,
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
  if (current ? effective(reloaded.settings) === effective(current) : !configures(reloaded.settings))
    return { type: 'unchanged' };
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

/** Whether a pushed settings replaces the agent's (pure): a well-formed one newer than what it has. */
export function takesPushedSettings(current: TreeSettings | undefined, push: unknown): push is SettingsPush {
  const parsed = settingsPushSchema.safeParse(push);
  return parsed.success && parsed.data.settings.version! > (current?.version ?? 0);
}

/** How a root's run looks at its settings (pure), from its input (recorded in its history) and its settings at start. */
export function settingsWatchOf(
  input: Pick<AgentWorkflowInput, 'workspaceWorker' | 'watchSettings'>,
  hasSettings: boolean,
): SettingsWatch {
  if (hasSettings || input.watchSettings === 'activity') return 'activity';
  return input.workspaceWorker ? 'none' : 'model-call';
}

function watchOf(agent: Pick<AgentParts, 'input' | 'state'>): SettingsWatch {
  const { input, state } = agent;
  let watch = watches.get(state);
  if (!watch) {
    watch = settingsWatchOf(input, state.settings !== undefined);
    watches.set(state, watch);
  }
  return watch;
}

/** Whether this agent runs the `reloadSettings` look before this turn: a root after its first turn that looks by activity. */
export function settingsReloadApplies(agent: Pick<AgentParts, 'input' | 'state'>): boolean {
  return agent.input.parentAgentId === undefined && agent.state.turn > 0 && watchOf(agent) === 'activity';
}

/** The look a root's turn model call carries (after its first turn, when it looks that way), as the call input's field. */
export function settingsLookField(agent: Pick<AgentParts, 'input' | 'state'>): { settingsLook?: SettingsLookRequest } {
  const { input, state } = agent;
  if (input.parentAgentId !== undefined || state.turn < 2 || watchOf(agent) !== 'model-call') return {};
  const knownHash = lastHashes.get(state);
  return { settingsLook: { cwd: state.cwd, ...(knownHash ? { knownHash } : {}) } };
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
  let result: SettingsReloadResult;
  try {
    result = await reloadOn(agent);
  } catch (error) {
    if (isCancellation(error)) throw error;
    agent.state.hooks.recordNotice(`settings not re-read: ${(error as Error).message}`);
    return;
  }
  await applySettingsLook(agent, result);
}

/** After a turn's model call: what its look found (nothing while the files are unchanged); true when settings changed. */
export async function applyModelCallLook(agent: AgentParts, response: ModelCallResult): Promise<boolean> {
  return response.settingsLook ? await applySettingsLook(agent, response.settingsLook) : false;
}

/** A look's result: ConfigChange hooks in force may refuse; else the new settings apply here and reach running subagents. */
async function applySettingsLook(agent: AgentParts, result: SettingsReloadResult): Promise<boolean> {
  const { input, state } = agent;
  const current = state.settings;
  const previous = lastStamps.get(state);
  lastStamps.set(state, result.stamps);
  if (result.hash) lastHashes.set(state, result.hash);
  const decision = decideSettingsReload(current, result, previous);
  if (decision.type === 'unchanged') return false;
  if (decision.type === 'invalid') {
    state.hooks.recordNotice(decision.notice);
    log.warn(`${input.agentId}: ${decision.notice}`);
    return false;
  }
  // ConfigChange hooks in force before the change see each file and may keep it out (Claude Code's `decision: "block"`).
  for (const file of decision.files) {
    const source = result.sources[file] ?? 'project_settings';
    const verdict = await runHooks(agent, 'ConfigChange', source, { source, file_path: file });
    if (verdict?.blocked) {
      const notice = `settings change in ${file} refused by a ConfigChange hook${verdict.reason ? `: ${verdict.reason}` : ''}; the previous settings stay`;
      state.hooks.recordNotice(notice);
      log.warn(`${input.agentId}: ${notice}`);
      return false;
    }
  }
  for (const notice of decision.notices) state.hooks.recordNotice(notice);
  state.replaceSettings({ ...decision.settings, version: (current?.version ?? 0) + 1 });
  log.info(`${input.agentId}: settings re-read (${decision.files.join(', ')}); they apply from this turn`);
  await pushSettings(agent);
  return true;
}

/** Sends the agent's settings to each running child (a finished one is skipped: best effort). */
async function pushSettings(agent: Pick<AgentParts, 'state' | 'children'>): Promise<void> {
  const settings = agent.state.settings;
  if (!settings) return;
  const running = [...agent.children.ids()].filter((id) => agent.children.isRunning(id));
  await Promise.all(running.map((id) => signalBestEffort(id, settingsChangedSignal, { settings })));
}

/** Registers the push's handler: newer well-formed settings replace the agent's at once and go on to its children. */
export function installSettingsPushHandler(agent: AgentParts): void {
  setHandler(settingsChangedSignal, (push: unknown) => {
    if (!takesPushedSettings(agent.state.settings, push)) return;
    agent.state.replaceSettings(push.settings);
    log.info(`${agent.input.agentId}: took its root's re-read settings (version ${push.settings.version})`);
    // Not awaited: a handler returns at once; the signals are commands of this task either way.
    void pushSettings(agent).catch(() => undefined);
  });
}
