import { setCurrentDetails } from '@temporalio/workflow';
import type {
  AgentResult,
  AgentStatusSnapshot,
  AgentWorkflowInput,
  RejectedInputs,
  StallReport,
} from '../../shared/agents/agent';
import { workflowNowMs } from '../runtime/clock';
import { todoLines, todoSummary } from '../../shared/tools/todos';
import type { AgentState } from './agent-state';

/** The fields of the status query this agent keeps as it goes; the rest is read from its parts when asked. */
export type ProgressFields = Pick<
  AgentStatusSnapshot,
  'state' | 'lastTool' | 'currentTools' | 'result' | 'waitingFor' | 'stalled'
>;

/** What the agent is doing now, for the `status` query and the Temporal UI's current details. */
export class Progress {
  private fields: ProgressFields = { state: 'starting', currentTools: [] };
  /** Workflow time of the last state change (the stall watchdog's clock). */
  private lastChange = workflowNowMs();

  constructor(
    private readonly input: AgentWorkflowInput,
    private readonly state: AgentState,
  ) {}

  /** The live fields, with the todo list and MCP servers the agent keeps in its state. */
  get current(): Readonly<ProgressFields & Pick<AgentStatusSnapshot, 'todos' | 'mcpServers'>> {
    const { todos, extraTools } = this.state;
    return {
      ...this.fields,
      ...(todos.length > 0 ? { todos } : {}),
      ...(extraTools && extraTools.status.length > 0 ? { mcpServers: extraTools.status } : {}),
    };
  }

  get lastChangeMs(): number {
    return this.lastChange;
  }

  /** A state change: progress, which also ends a stall. */
  private touch(): void {
    this.lastChange = workflowNowMs();
    this.fields.stalled = undefined;
  }

  /** The stall watchdog found no progress: say so in the status and the UI's current details. */
  stalledNow(report: StallReport): void {
    this.fields.stalled = report;
    const seconds = Math.round(report.afterMs / 1000);
    setCurrentDetails(
      this.withTodos(
        `**stalled**: no progress for ${seconds}s (${report.activity}, turn ${this.state.turn}/${this.input.maxTurns})${report.action === 'stop' ? '; stopping it' : ''}`,
      ),
    );
  }

  get finished(): boolean {
    return this.fields.result !== undefined;
  }

  callingModel(): void {
    this.touch();
    this.fields.state = 'calling_model';
    this.fields.waitingFor = undefined;
    setCurrentDetails(this.withTodos(`turn ${this.state.turn}/${this.input.maxTurns}: calling ${this.input.model}`));
  }

  runningTools(): void {
    this.touch();
    this.fields.state = 'running_tools';
  }

  toolStarted(name: string): void {
    this.touch();
    this.fields.lastTool = name;
    this.fields.currentTools = [...this.fields.currentTools, name];
    setCurrentDetails(this.withTodos(`turn ${this.state.turn}/${this.input.maxTurns}: running ${name}`));
  }

  todosChanged(): void {
    this.touch();
    setCurrentDetails(this.withTodos(`turn ${this.state.turn}/${this.input.maxTurns}: updated its todo list`));
  }

  private withTodos(details: string): string {
    const todos = this.state.todos;
    if (todos.length === 0) return details;
    return `${details}\n\n**Todos** ${todoSummary(todos)}\n${todoLines(todos).join('\n')}`;
  }

  toolsDone(): void {
    this.touch();
    this.fields.currentTools = [];
  }

  /** Waiting at a turn boundary for `what` (e.g. "the next message"). */
  waiting(what: string): void {
    this.touch();
    this.fields.state = 'waiting';
    this.fields.waitingFor = what;
    setCurrentDetails(`waiting for ${what}`);
  }

  /** Rewound to an earlier boundary (docs/rewind.md). */
  rewound(turn: number, by: string): void {
    this.touch();
    setCurrentDetails(`rewound to turn ${turn} by ${by}`);
  }

  /** The agent's final result (a later ending, e.g. worktree cleanup, may amend it). */
  finish(result: AgentResult): void {
    this.touch();
    this.fields.state = 'finished';
    this.fields.waitingFor = undefined;
    this.fields.result = result;
    // Why it ended ("stopped by budget: …", "stopped by user: …") where the UI shows the ending.
    const why = result.error ? `: ${result.error.length > 300 ? `${result.error.slice(0, 299)}…` : result.error}` : '';
    setCurrentDetails(
      this.withTodos(
        `**${result.status}** after ${this.state.turn} turns, ${this.state.toolUses} tool uses${why}` +
          (this.state.turns.last > 0
            ? `\n\nTurns 0–${this.state.turns.last} can be forked or rewound (docs/rewind.md).`
            : ''),
      ),
    );
  }

  /** A signal was refused: say so where an operator looks (the UI's current details). */
  inputRejected(rejections: Readonly<RejectedInputs>): void {
    const last = rejections.last;
    if (last)
      setCurrentDetails(
        `rejected ${rejections.count} invalid signal(s); last: ${last.name} (${last.reason.slice(0, 200)})`,
      );
  }

  amendResult(result: AgentResult): void {
    this.fields.result = result;
  }
}
