import { setCurrentDetails } from '@temporalio/workflow';
import type { TokenUsage } from '../../shared/model/messages';
import {
  scriptLimits,
  type ScriptAgentStatus,
  type ScriptAgentView,
  type ScriptJournalEntry,
  type ScriptPhaseView,
  type ScriptRunSnapshot,
  type ScriptRunSpec,
  type ScriptRunStatus,
} from '../../shared/scripts/script-run';
import { workflowNowMs } from '../runtime/clock';

/** Agents outside every phase are counted under this title. */
export const noPhase = '(no phase)';

const emptyCounts = (): Record<ScriptAgentStatus, number> => ({
  queued: 0,
  running: 0,
  completed: 0,
  failed: 0,
  cancelled: 0,
  reused: 0,
});

/** A run's record of its phases, agents, logs and journal: what its queries, the UI and a resume read. */
export class RunView {
  private readonly agents: ScriptAgentView[] = [];
  private readonly phases: ScriptPhaseView[] = [];
  private readonly logs: { atMs: number; text: string }[] = [];
  private readonly entries: ScriptJournalEntry[] = [];
  private phaseTitle?: string;
  private status: ScriptRunStatus = 'running';
  private result?: unknown;
  private error?: string;
  private endedAtMs?: number;
  private readonly startedAtMs = workflowNowMs();

  constructor(
    private readonly runId: string,
    private readonly spec: ScriptRunSpec,
    private readonly maxConcurrentAgents: number,
  ) {
    this.showDetails();
  }

  get currentPhase(): string | undefined {
    return this.phaseTitle;
  }

  /** `phase(title)`: later agents without `opts.phase` are grouped under it. */
  enterPhase(title: string): void {
    this.phaseTitle = title.slice(0, scriptLimits.maxLogChars);
    this.phaseNamed(this.phaseTitle);
    this.showDetails();
  }

  /** `log(message)`: a narrator line (the oldest go past the limit). */
  log(text: string): void {
    this.logs.push({ atMs: workflowNowMs(), text: text.slice(0, scriptLimits.maxLogChars) });
    if (this.logs.length > scriptLimits.maxLogLines) this.logs.shift();
  }

  /** An `agent()` call waiting for a slot. */
  queued(call: Omit<ScriptAgentView, 'status' | 'tokens'>): void {
    this.agents.push({ ...call, status: 'queued', tokens: 0 });
    this.count(call.phase, 'queued', +1);
    this.showDetails();
  }

  started(index: number, agentId: string): void {
    const agent = this.agentAt(index);
    this.move(agent, 'running');
    agent.agentId = agentId;
    agent.startedAtMs = workflowNowMs();
    this.showDetails();
  }

  /** A call that ended: its entry joins the journal a later run may resume from. */
  ended(index: number, entry: Omit<ScriptJournalEntry, 'index'>): void {
    const agent = this.agentAt(index);
    this.move(agent, entry.status);
    agent.tokens = entry.tokens;
    agent.endedAtMs = workflowNowMs();
    if (entry.agentId) agent.agentId = entry.agentId;
    if (entry.error) agent.error = entry.error;
    this.phaseNamed(agent.phase).tokens += entry.tokens;
    this.entries.push({ index, ...entry });
    this.showDetails();
  }

  /** A call answered from the previous run's journal (nothing started). */
  reused(call: Omit<ScriptAgentView, 'status' | 'tokens'>, entry: ScriptJournalEntry, fromRunId: string): void {
    const now = workflowNowMs();
    this.agents.push({
      ...call,
      agentId: entry.agentId,
      status: 'reused',
      tokens: 0,
      startedAtMs: now,
      endedAtMs: now,
      reusedFrom: fromRunId,
    });
    this.count(call.phase, 'reused', +1);
    // Carried on, so a resume of this run can reuse it again.
    this.entries.push({ ...entry, index: call.index });
  }

  finish(status: Exclude<ScriptRunStatus, 'running'>, outcome: { result?: unknown; error?: string }): void {
    this.status = status;
    this.result = outcome.result;
    this.error = outcome.error;
    this.endedAtMs = workflowNowMs();
    for (const phase of this.phases) phase.endedAtMs ??= this.endedAtMs;
    this.showDetails();
  }

  /** Finished calls in call order. */
  journal(): ScriptJournalEntry[] {
    return [...this.entries].sort((first, second) => first.index - second.index);
  }

  snapshot(usage: TokenUsage): ScriptRunSnapshot {
    const { meta } = this.spec.script;
    return {
      runId: this.runId,
      name: meta.name,
      description: meta.description,
      status: this.status,
      startedAtMs: this.startedAtMs,
      ...(this.endedAtMs !== undefined ? { endedAtMs: this.endedAtMs } : {}),
      ...(this.phaseTitle !== undefined ? { currentPhase: this.phaseTitle } : {}),
      phases: this.phases.map((phase) => ({ ...phase, counts: { ...phase.counts } })),
      agents: this.agents.map((agent) => ({ ...agent })),
      logs: [...this.logs],
      usage,
      ...(this.result !== undefined ? { result: this.result } : {}),
      ...(this.error !== undefined ? { error: this.error } : {}),
      ...(this.spec.resumeFrom ? { resumedFrom: this.spec.resumeFrom.runId } : {}),
      maxConcurrentAgents: this.maxConcurrentAgents,
    };
  }

  private agentAt(index: number): ScriptAgentView {
    const agent = this.agents.find((candidate) => candidate.index === index);
    if (!agent) throw new Error(`no agent() call ${index} in this run`);
    return agent;
  }

  private move(agent: ScriptAgentView, status: ScriptAgentStatus): void {
    this.count(agent.phase, agent.status, -1);
    agent.status = status;
    this.count(agent.phase, status, +1);
  }

  private count(title: string | undefined, status: ScriptAgentStatus, delta: number): void {
    this.phaseNamed(title).counts[status] += delta;
  }

  private phaseNamed(title: string | undefined): ScriptPhaseView {
    const name = title ?? noPhase;
    let phase = this.phases.find((candidate) => candidate.title === name);
    if (!phase) {
      const now = workflowNowMs();
      // A new phase ends the time of the one before it (phases run one after another in most scripts).
      const previous = this.phases.at(-1);
      if (previous && previous.endedAtMs === undefined && title !== undefined) previous.endedAtMs = now;
      phase = { title: name, counts: emptyCounts(), tokens: 0, startedAtMs: now };
      this.phases.push(phase);
    }
    return phase;
  }

  /** The Temporal UI's current details: the run's phases, one row each. */
  private showDetails(): void {
    const rows = this.phases.map((phase) => {
      const { counts } = phase;
      const done = counts.completed + counts.reused;
      return `| ${phase.title.replaceAll('|', '/')} | ${counts.queued + counts.running} | ${done} | ${counts.failed + counts.cancelled} | ${phase.tokens} |`;
    });
    const { meta } = this.spec.script;
    setCurrentDetails(
      `**Workflow** ${meta.name} · ${this.status}${this.phaseTitle ? ` · phase ${this.phaseTitle}` : ''}\n\n` +
        `${meta.description}\n\n` +
        (rows.length > 0
          ? `| phase | running | done | failed | tokens |\n|---|---|---|---|---|\n${rows.join('\n')}`
          : ''),
    );
  }
}
