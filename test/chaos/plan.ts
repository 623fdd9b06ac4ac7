// What each chaos run does: the scripted 3-level tree, and where its worker gets killed.
import type { Prng } from './prng';

/** The five agents of a run's tree. Child ids are deterministic: `<parent>.<n>` in Agent tool_use order. */
export type Role = 'root' | 'bg' | 'bgChild' | 'fg' | 'fgChild';
export const roles: readonly Role[] = ['root', 'bg', 'bgChild', 'fg', 'fgChild'];
export const roleSuffix: Record<Role, string> = { root: '', bg: '.1', bgChild: '.1.1', fg: '.2', fgChild: '.2.1' };
export const agentIdOf = (rootId: string, role: Role): string => `${rootId}${roleSuffix[role]}`;

/** Agents that run a Bash command (one each). */
export const bashRoles: readonly Role[] = ['root', 'bgChild', 'fgChild'];

/** Model turns each agent always makes (the root may make one more: see rootTurns). */
export const modelTurns: Record<Role, number> = { root: 4, bg: 4, bgChild: 3, fg: 4, fgChild: 3 };

export type KillKind =
  | 'model-call'
  | 'tool-call'
  | 'child-start'
  | 'approval-wait'
  | 'worktree-creation'
  | 'continue-as-new'
  | 'dev-server-restart';

/** The moment a run's disruption happens, observed from outside the worker. */
export type Trigger =
  /** The model server received this agent's request for this turn (the turn is slowed to 4 s, so the kill lands mid-call). */
  | { on: 'model-request'; role: Role; turn: number }
  /** This agent's Bash wrote its start line and is sleeping. */
  | { on: 'bash-running'; role: Role }
  /** This child's workflow exists (describe answers). */
  | { on: 'child-started'; role: Role }
  /** The root's Bash waits for an approval (held until the disruption is over, then approved). */
  | { on: 'approval-pending' }
  /** `git worktree add` of the worktree child is running (its post-checkout hook wrote a line and sleeps 3 s). */
  | { on: 'worktree-hook' }
  /** This agent has continued-as-new at least once (its current run is not its first). */
  | { on: 'continued-as-new'; role: Role };

export interface KillPoint {
  kind: KillKind;
  trigger: Trigger;
  /** Also stop the dev server and start it again (same port, same SQLite file). */
  restartServer: boolean;
}

export interface RunPlan {
  /** 1-based. */
  index: number;
  rootId: string;
  kill: KillPoint;
  /** Lowered continue-as-new threshold for the whole tree (undefined: the runtime's default). */
  continueAsNewAfterEvents?: number;
  /** delayMs of each scripted model turn, per agent. */
  delays: Record<Role, number[]>;
}

/** Delay of the turn a model-request trigger waits for: long enough to kill the worker mid-call. */
export const slowTurnMs = 4000;
/** How long each Bash sleeps between its start and end lines. */
export const bashSleepSeconds = 2;
/** Continue-as-new threshold of the runs that continue-as-new: low, so every agent continues 1-3 times. */
export const lowContinueAsNewThreshold = 16;

// Priority order: with 20 runs each kind gets 3 runs, worktree creation (the slowest to recover: 1 min) 2.
const kindOrder: readonly KillKind[] = [
  'model-call',
  'tool-call',
  'child-start',
  'approval-wait',
  'continue-as-new',
  'dev-server-restart',
  'worktree-creation',
];

export function describeTrigger(trigger: Trigger): string {
  switch (trigger.on) {
    case 'model-request':
      return `${trigger.role} turn ${trigger.turn} model call`;
    case 'bash-running':
      return `${trigger.role} Bash`;
    case 'child-started':
      return `${trigger.role} just started`;
    case 'approval-pending':
      return 'root Bash approval wait';
    case 'worktree-hook':
      return 'fg git worktree add';
    case 'continued-as-new':
      return `${trigger.role} after continue-as-new`;
  }
}

export function describeKill(kill: KillPoint): string {
  return `${kill.kind}: ${describeTrigger(kill.trigger)}`;
}

function triggerFor(kind: KillKind, prng: Prng): Trigger {
  switch (kind) {
    case 'model-call': {
      const role = prng.pick(roles);
      return { on: 'model-request', role, turn: prng.int(0, modelTurns[role] - 1) };
    }
    case 'tool-call':
      return { on: 'bash-running', role: prng.pick(bashRoles) };
    case 'child-start':
      return { on: 'child-started', role: prng.pick(roles.filter((role) => role !== 'root')) };
    case 'approval-wait':
      return { on: 'approval-pending' };
    case 'worktree-creation':
      return { on: 'worktree-hook' };
    case 'continue-as-new':
      return { on: 'continued-as-new', role: prng.pick(roles) };
    case 'dev-server-restart':
      return triggerFor(prng.pick(['model-call', 'tool-call', 'child-start', 'approval-wait'] as const), prng);
  }
}

/** The plan of every run, from the seed alone. */
export function buildPlans(prng: Prng, runs: number, seed: number): RunPlan[] {
  const kinds = prng.shuffle(Array.from({ length: runs }, (_, index) => kindOrder[index % kindOrder.length]!));
  return kinds.map((kind, offset) => {
    const trigger = triggerFor(kind, prng);
    const delays = Object.fromEntries(
      roles.map((role) => [role, Array.from({ length: modelTurns[role] + 1 }, () => prng.int(100, 300))]),
    ) as Record<Role, number[]>;
    if (trigger.on === 'model-request') delays[trigger.role][trigger.turn] = slowTurnMs;
    const lowThreshold = kind === 'continue-as-new' || prng.next() < 0.35;
    const index = offset + 1;
    return {
      index,
      rootId: `chaos-${seed.toString(16)}-r${String(index).padStart(2, '0')}`,
      kill: { kind, trigger, restartServer: kind === 'dev-server-restart' },
      ...(lowThreshold ? { continueAsNewAfterEvents: lowContinueAsNewThreshold } : {}),
      delays,
    };
  });
}

/** The marker a Bash writes (start and end lines): unique per agent, so a second run shows as a repeated line. */
export const bashMarker = (rootId: string, role: Role): string => `BASH-${agentIdOf(rootId, role)}`;

function bashCommand(rootId: string, role: Role, markersFile: string): string {
  const marker = bashMarker(rootId, role);
  return `echo '${marker} start' >> '${markersFile}'; sleep ${bashSleepSeconds}; echo '${marker} end' >> '${markersFile}'`;
}

export const rootFinalPrefix = 'CHAOS-ROOT-DONE';

type ToolUse = { name: string; input: Record<string, unknown> };
type ScriptedTurn = { text?: string; toolUses?: ToolUse[]; delayMs?: number };

/**
 * The scripted model's answers for one run's five agents, matched by agentId. The root runs in
 * permissionMode 'default': its Bash, the worktree child's Write and the foreground grandchild's Bash
 * ask a person (the script approves); the background branch's grandchild is auto-approved
 * (backgroundApprovals 'approve'). The background child spawns first so both branches overlap.
 */
export function scenarioEntries(
  plan: RunPlan,
  markersFile: string,
): { match: { agentId: string }; turns: ScriptedTurn[] }[] {
  const { rootId } = plan;
  /** A leaf's script: one look around, the Bash that appends its marker, and its answer. */
  const leafScript = (role: 'bgChild' | 'fgChild', look: ToolUse, branch: string): Omit<ScriptedTurn, 'delayMs'>[] => [
    { toolUses: [look] },
    {
      toolUses: [
        {
          name: 'Bash',
          input: { command: bashCommand(rootId, role, markersFile), description: `append the ${branch} leaf marker` },
        },
      ],
    },
    { text: `${branch} leaf done` },
  ];
  /** The turn that starts the leaf under one branch of the tree. */
  const spawnLeaf = (branch: string) => ({
    toolUses: [
      {
        name: 'Agent',
        input: {
          description: `${branch} leaf`,
          prompt: `CHAOS leaf under the ${branch} branch of ${rootId}`,
          subagent_type: 'general-purpose',
        },
      },
    ],
  });
  const script: Record<Role, Omit<ScriptedTurn, 'delayMs'>[]> = {
    root: [
      {
        toolUses: [
          { name: 'Glob', input: { pattern: '*.txt' } },
          { name: 'Read', input: { file_path: 'shared.txt' } },
        ],
      },
      {
        text: 'running the root command',
        toolUses: [
          {
            name: 'Bash',
            input: { command: bashCommand(rootId, 'root', markersFile), description: 'append the root marker' },
          },
        ],
      },
      {
        toolUses: [
          {
            name: 'Agent',
            input: {
              description: 'background explorer',
              prompt: `CHAOS background branch of ${rootId}`,
              subagent_type: 'general-purpose',
              run_in_background: true,
            },
          },
          {
            name: 'Agent',
            input: {
              description: 'worktree writer',
              prompt: `CHAOS worktree branch of ${rootId}`,
              subagent_type: 'general-purpose',
              isolation: 'worktree',
            },
          },
        ],
      },
      { text: `${rootFinalPrefix}: children finished` },
      { text: `${rootFinalPrefix}: background branch reported` },
    ],
    bg: [
      { toolUses: [{ name: 'Glob', input: { pattern: '**/*.txt' } }] },
      { toolUses: [{ name: 'Read', input: { file_path: 'notes/a.txt' } }] },
      spawnLeaf('background'),
      { text: 'background branch done' },
    ],
    bgChild: leafScript('bgChild', { name: 'Read', input: { file_path: 'shared.txt' } }, 'background'),
    fg: [
      {
        toolUses: [
          { name: 'Read', input: { file_path: 'shared.txt' } },
          { name: 'Glob', input: { pattern: '*.txt' } },
        ],
      },
      {
        toolUses: [
          {
            name: 'Write',
            input: { file_path: 'chaos-notes.txt', content: `written in the worktree of ${agentIdOf(rootId, 'fg')}\n` },
          },
        ],
      },
      spawnLeaf('worktree'),
      { text: 'worktree branch done' },
    ],
    fgChild: leafScript('fgChild', { name: 'Glob', input: { pattern: 'notes/*.txt' } }, 'worktree'),
  };
  return roles.map((role) => ({
    match: { agentId: agentIdOf(rootId, role) },
    turns: script[role].map((turn, index) => ({ ...turn, delayMs: plan.delays[role][index] ?? 150 })),
  }));
}
