// The agent types an agent may start, told in its first message (not the tool description) so tools stay cacheable.
import type { PermissionMode } from './agent';
import type { AgentDefinition } from './agent-definition';
import { resolveSubagentModel } from './model-resolution';
import { assembleToolPool } from '../tools/tool-pool';

/** What the roster of one agent depends on. */
export interface RosterInput {
  /** Every loaded type, by name. */
  definitions: Readonly<Record<string, AgentDefinition>>;
  /** From `Agent(a,b)` in the agent's definition; undefined = any type. */
  allowedAgentTypes?: readonly string[];
  /** The agent's own depth (root = 0); its children are one deeper. */
  depth: number;
  maxDepth: number;
  permissionMode: PermissionMode;
  /** The agent's model (children with `model: inherit` get it). */
  model: string;
  subagentModelOverride?: string;
  /** `limits.forking`: what an omitted subagent_type starts. */
  forking: boolean;
}

/** A parent in these modes cannot be narrowed by a child definition (docs/architecture.md, approvals). */
export function childPermissionMode(
  parent: PermissionMode,
  definition: Pick<AgentDefinition, 'permissionMode'>,
): PermissionMode {
  if (parent === 'bypassPermissions' || parent === 'acceptEdits') return parent;
  return definition.permissionMode ?? 'default';
}

/** The tools a child of this type gets (as the Agent tool will assemble them), as the roster names them. */
function describeTools(definition: AgentDefinition, input: RosterInput): string[] {
  const background = definition.background ?? false;
  const pool = assembleToolPool({
    definition,
    depth: input.depth + 1,
    maxDepth: input.maxDepth,
    background,
    permissionMode: childPermissionMode(input.permissionMode, definition),
  });
  return pool.map((name) => (name === 'Bash' && definition.readOnlyBash ? 'Bash (read-only commands)' : name));
}

function compareNames(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** One line per type this agent may start, sorted by name: `- name: description (Tools: …; model: …)`. */
export function rosterLines(input: RosterInput): string[] {
  const allowed = input.allowedAgentTypes;
  return Object.values(input.definitions)
    .filter((definition) => !allowed || allowed.includes(definition.name))
    .sort((left, right) => compareNames(left.name, right.name))
    .flatMap((definition) => {
      const tools = describeTools(definition, input);
      if (tools.length === 0) return [];
      const model = resolveSubagentModel({
        environmentOverride: input.subagentModelOverride,
        callModel: undefined,
        definitionModel: definition.model,
        parentModel: input.model,
      });
      const extras = [
        definition.background ? 'always in the background' : '',
        definition.isolation === 'worktree' ? 'in its own git worktree' : '',
      ]
        .filter(Boolean)
        .join(', ');
      const description = definition.description.replace(/\s+/g, ' ').trim();
      return [
        `- ${definition.name}: ${description} (Tools: ${tools.join(', ')}; model: ${model}${extras ? `; runs ${extras}` : ''})`,
      ];
    });
}

/** How to use the Agent tool well; the omitted-type rule follows the run's forking setting. */
function usageRules(forking: boolean): string[] {
  const omitted = forking
    ? 'Omitting subagent_type forks you (forking is on for this run), exactly as subagent_type "fork" does.'
    : 'Omitting subagent_type starts a general-purpose agent (forking is off for this run); subagent_type "fork" forks you.';
  return [
    'How to delegate:',
    '- Delegate work that needs many searches, reads or steps, or that can run while you do something else. Do small lookups yourself: to read a known file or find a definition, Read, Grep and Glob are faster than an agent.',
    '- Independent tasks: start several agents in ONE message (one Agent tool use each); they run side by side.',
    '- A new agent has not seen this conversation. Brief it like a capable colleague who just walked in: the goal and why it matters, what you already know or ruled out, exact paths, whether it should change code or only report, and what its answer should contain (and how long). Do not hand over the understanding itself ("fix it based on your findings"): say what to change.',
    `- ${omitted} A fork continues from your conversation with your tools and model, runs in the background unless run_in_background is false, and needs only a directive as its prompt; a fork cannot fork again.`,
    '- Named agents run in the foreground unless run_in_background is true (or their type always runs in the background). A background agent returns its agentId at once and you are notified when it finishes: do not poll or guess its result, go on with other work or end your turn to wait.',
    '- isolation: "worktree" runs the agent in its own git worktree on a new branch, removed again if it changed nothing; cwd runs it in another directory of this checkout.',
    '- To continue a finished agent with its context, use SendMessage with its agentId or name; every Agent call starts a fresh agent. TaskStop stops one of your running background agents.',
    "- The user does not see an agent's result. Check what matters, then tell the user in your own words.",
  ];
}

/** The roster section of an agent's first message, or undefined when it cannot start any agent. */
export function renderAgentRoster(input: RosterInput): string | undefined {
  const lines = rosterLines(input);
  if (lines.length === 0) return undefined;
  return ['# Agent types you can start with the Agent tool', ...lines, '', ...usageRules(input.forking)].join('\n');
}
