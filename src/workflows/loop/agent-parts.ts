import type { AgentWorkflowInput } from '../../shared/agents/agent';
import { AgentState } from './agent-state';
import { BudgetLink } from '../budget/budget-link';
import { Approvals } from '../tools/approvals';
import { AgentBoardLink } from '../board/agent-board-link';
import { Children } from '../tree/children';
import { Compaction } from '../context/compaction';
import { Inbox } from './inbox';
import { Progress } from './progress';
import { AgentTool } from '../tree/spawn';
import { TreeLink } from '../tree/tree-link';
import { TurnControl } from './turn-control';
import { VersionUpgrade } from '../context/version-upgrade';
import { RewindRequest } from '../rewind/rewind-request';
import { hooksMayRun } from '../tools/hooks';
import { notify } from '../tools/hook-events';

/** The parts of one agent run, each owning its state; made first, in the root scope, so abort domains hang right. */
export interface AgentParts {
  readonly input: AgentWorkflowInput;
  /** Conversation, counters, where it works. */
  readonly state: AgentState;
  /** Lifetime and turn abort domains; who stopped or interrupted it. */
  readonly control: TurnControl;
  /** Notifications, messages and steering waiting for the next turn boundary. */
  readonly inbox: Inbox;
  /** Its link to the tree's root (the root's bookkeeping, on the root). */
  readonly tree: TreeLink;
  /** Its link to the tree's ledger: its calls' reservations, its lease (the ledger itself, on the root). */
  readonly budget: BudgetLink;
  readonly approvals: Approvals;
  readonly children: Children;
  readonly agentTool: AgentTool;
  readonly progress: Progress;
  /** Compacting its conversation when it outgrows the context (docs/architecture.md, Compaction). */
  readonly compaction: Compaction;
  /** Its task board: the task-list tools and the heartbeats of its claims. */
  readonly board: AgentBoardLink;
  /** A move onto its deployment's current version, when asked (docs/operations.md, "Upgrades"). */
  readonly upgrade: VersionUpgrade;
  /** A rewind asked of the running agent, carried out at its next boundary (docs/rewind.md). */
  readonly rewinding: RewindRequest;
}

export function createAgentParts(input: AgentWorkflowInput): AgentParts {
  const state = new AgentState(input.carried, {
    cwd: input.cwd,
    workspaceRoot: input.workspaceRoot,
    renderedSystemPrompt: input.renderedSystemPrompt,
    permissionMode: input.permissionMode,
    ...(input.treeSettings ? { treeSettings: input.treeSettings } : {}),
  });
  const control = new TurnControl();
  const inbox = new Inbox(input.carriedInbox);
  const budget = new BudgetLink(input);
  const tree = new TreeLink(input, budget);
  if (input.carriedTree) tree.coordinator?.restore(input.carriedTree);
  const children = new Children(input, state, inbox, tree);
  const parts: AgentParts = {
    input,
    state,
    control,
    inbox,
    tree,
    budget,
    approvals: new Approvals(input, tree, state.permissions),
    children,
    agentTool: new AgentTool(input, state, children, tree),
    progress: new Progress(input, state),
    compaction: new Compaction(),
    board: new AgentBoardLink(input, inbox),
    upgrade: new VersionUpgrade(),
    rewinding: new RewindRequest(),
  };
  // A reached cap's question (docs/budgets.md, `ask`) is the root's: its Notification hooks hear of it, only when configured.
  tree.ledger?.notifyWith((message) => {
    if (hooksMayRun(parts, 'Notification', 'permission_prompt'))
      void notify(parts, 'permission_prompt', message).catch(() => undefined);
  });
  return parts;
}
