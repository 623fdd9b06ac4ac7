// `renderAgentStart`: what an agent is given once, at start: system prompt, first-message context, agent types.
import type { DefinitionPromptRef, SpawnContext } from '../../shared/agents/agent-definition';
import { promptDigest, resolveDefinitionPrompt, withoutPrompts } from '../../project/agent-definitions/prompt-store';
import type { SdkAgents } from '../../shared/agents/sdk-agents';
import type { AgentStart, AgentStartInput, WorkerTools } from '../../shared/agents/agent-start';
import type { CustomToolFilter } from '../../shared/tools/custom-tools';
import { renderAgentRoster } from '../../shared/agents/agent-roster';
import { identitySection, systemReminder } from './agent-context';
import { environmentBlock, gitSnapshot } from './environment';
import { subagentNotes, workingGuidance } from './guidance';
import { loadInstructionFiles, renderInstructions } from './instructions';
import { findSkills, renderSkills } from '../../project/skills';
import { savedScriptsSection } from '../../shared/tools/workflow-tool-definition';
import { listSavedScripts } from '../../project/scripts/saved-scripts';
import { memoryDirectory, memorySection } from '../agent-memory';
import { log } from '@temporalio/activity';
import type { TreeSettings } from '../../shared/agents/tree-settings';
import { loadProjectSettings } from '../../project/settings/project-settings';

/** A warning in the worker's log, when called inside an activity. */
function warn(message: string): void {
  try {
    log.warn(message);
  } catch {
    // Outside an activity (direct calls in tests): nothing to log to.
  }
}

/** A root's tree settings, when its settings files configure anything; their problems go to the worker's log. */
async function treeSettings(cwd: string, homeDir: string): Promise<TreeSettings | undefined> {
  const settings = await loadProjectSettings(cwd, homeDir);
  for (const problem of settings.problems ?? []) warn(`settings: ${problem}`);
  return settings.hooks || settings.permissions || settings.sandbox ? settings : undefined;
}

/** A child's definition prompt by its digest; a prompt that is not the one its parent loaded is said in the worker's log. */
async function promptByDigest(ref: DefinitionPromptRef, agentType: string, homeDir: string): Promise<string> {
  const resolved = await resolveDefinitionPrompt(ref, agentType, homeDir);
  if (resolved.changed) {
    warn(
      `agent type "${agentType}": its definition${ref.file ? ` in ${ref.file}` : ''} changed since its parent loaded it, and no worker kept that prompt; the child starts with the current one`,
    );
  }
  return resolved.prompt;
}

/** What the system prompt is made of. */
export interface SystemPromptInput {
  definitionPrompt: string;
  cwd: string;
  model: string;
  /** Subagents get the notes on reporting to their caller. */
  subagent: boolean;
  /** Slim prompt (Explore, Plan): no guidance, git status or CLAUDE.md. */
  oneShot: boolean;
  homeDir: string;
}

/** A child of a Claude Agent SDK type: its prompt travels in the tree's input, so any worker has it. */
function sdkAgentPrompt(input: AgentStartInput): string | undefined {
  const ref = input.definitionPromptRef;
  const definition =
    input.sdkAgents && Object.hasOwn(input.sdkAgents, input.agentType) ? input.sdkAgents[input.agentType] : undefined;
  return ref && definition && promptDigest(definition.prompt) === ref.digest ? definition.prompt : undefined;
}

/** Renders a system prompt; agents of one type, place and day get the same bytes. */
export async function renderSystemPromptText(input: SystemPromptInput): Promise<string> {
  const git = await gitSnapshot(input.cwd);
  const date = new Date().toISOString().slice(0, 10);
  const sections = [input.definitionPrompt.trim()];
  if (!input.oneShot) sections.push(workingGuidance);
  if (input.subagent) sections.push(subagentNotes);
  sections.push(
    `# Environment\n${environmentBlock({ cwd: input.cwd, isGitRepository: git.isGitRepository, model: input.model, date })}`,
  );
  if (!input.oneShot) {
    if (git.text) sections.push(git.text);
    const instructions = renderInstructions(loadInstructionFiles(input.cwd, input.homeDir));
    if (instructions) sections.push(instructions);
  }
  return sections.join('\n\n');
}

/** Creates `renderAgentStart`; `loadSpawnContext` loads agent types for a cwd (the same loader the Agent tool uses). */
export function createAgentStartActivity(options: {
  homeDir: string;
  loadSpawnContext: (input: { cwd: string; sdkAgents?: SdkAgents }) => Promise<SpawnContext>;
  /** The worker's custom tools for the agent's filter, and its tool task queues (absent: none). */
  workerTools?: (filter: CustomToolFilter | undefined) => WorkerTools | undefined;
}) {
  return async function renderAgentStart(input: AgentStartInput): Promise<AgentStart> {
    const prompt = await renderSystemPromptText({
      definitionPrompt: input.definitionPromptRef
        ? (sdkAgentPrompt(input) ?? (await promptByDigest(input.definitionPromptRef, input.agentType, options.homeDir)))
        : input.definitionPrompt,
      cwd: input.cwd,
      model: input.model,
      subagent: input.parentAgentId !== undefined,
      oneShot: input.oneShot === true,
      homeDir: options.homeDir,
    });
    const systemPrompt = input.memory
      ? `${prompt}\n\n${await memorySection(input.memory, input.agentType, input.cwd, options.homeDir)}`
      : prompt;
    const sections = [identitySection(input)];
    let spawnContext: SpawnContext | undefined;
    if (input.tools.includes('Agent')) {
      spawnContext = await options.loadSpawnContext({
        cwd: input.cwd,
        ...(input.sdkAgents ? { sdkAgents: input.sdkAgents } : {}),
      });
      const roster = renderAgentRoster({
        definitions: spawnContext.loaded.definitions,
        allowedAgentTypes: input.allowedAgentTypes,
        depth: input.depth,
        maxDepth: input.maxDepth,
        permissionMode: input.permissionMode,
        model: input.model,
        subagentModelOverride: spawnContext.subagentModelOverride,
        forking: input.forking,
      });
      sections.push(
        roster ??
          '# Agent types you can start with the Agent tool\nNone: no agent type is available to you, so do the work with your own tools.',
      );
    }
    // Saved scripts are listed here, not in the tool's description: every agent keeps the same tools block (one cache prefix).
    if (input.tools.includes('Workflow')) {
      const saved = await listSavedScripts({
        cwd: input.cwd,
        workspaceRoot: input.workspaceRoot ?? input.cwd,
        homeDir: options.homeDir,
      });
      const section = savedScriptsSection(saved.scripts);
      if (section) sections.push(section);
    }
    const workerTools = options.workerTools?.(input.customTools);
    const found = input.skills?.length ? await findSkills(input.skills, input.cwd, options.homeDir) : undefined;
    const skills = found ? renderSkills(found.skills, found.missing) : undefined;
    const settings = input.loadSettings ? await treeSettings(input.cwd, options.homeDir) : undefined;
    return {
      ...(settings ? { settings } : {}),
      systemPrompt,
      context: systemReminder(sections),
      // User memory is under home, outside the workspace: the agent's file tools are let in there.
      ...(input.memory === 'user'
        ? { memoryDirectory: memoryDirectory('user', input.agentType, input.cwd, options.homeDir) }
        : {}),
      ...(skills ? { skills } : {}),
      // The agent's record of its types keeps digests, not prompts: a child gets its prompt at its start.
      ...(spawnContext ? { spawnContext: withoutPrompts(spawnContext) } : {}),
      ...(workerTools ? { workerTools } : {}),
    };
  };
}
