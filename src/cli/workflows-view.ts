/** How `subagents workflows`, `run --follow` and `watch` show script runs (docs/cli.md). Pure. */
import type { ScriptRunListing } from '../client/script-runs';
import { totalTokens } from '../shared/model/messages';
import type {
  ScriptAgentStatus,
  ScriptAgentView,
  ScriptPhaseView,
  ScriptRunSnapshot,
} from '../shared/scripts/script-run';

const finishedStatuses: readonly ScriptAgentStatus[] = ['completed', 'failed', 'cancelled', 'reused'];

/** `12.3k` tokens, or the number below a thousand. */
export const compactTokens = (tokens: number): string =>
  tokens >= 1_000_000
    ? `${(tokens / 1_000_000).toFixed(1)}M`
    : tokens >= 1000
      ? `${(tokens / 1000).toFixed(1)}k`
      : String(tokens);

/** `1m05s` from `startedAtMs` to `endedAtMs`, or to now while it runs. */
export function elapsedText(startedAtMs: number, endedAtMs: number | undefined, nowMs: number): string {
  const seconds = Math.max(0, Math.round(((endedAtMs ?? nowMs) - startedAtMs) / 1000));
  return seconds >= 60 ? `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s` : `${seconds}s`;
}

/** Agents finished (reused ones included) and all the run has called. */
export function agentCounts(snapshot: ScriptRunSnapshot): { done: number; total: number } {
  return {
    done: snapshot.agents.filter((agent) => finishedStatuses.includes(agent.status)).length,
    total: snapshot.agents.length,
  };
}

/** `Read: 3/5 (2 running)`: a phase's finished agents of all, and those not completed by status. */
export function phaseSummary(phase: ScriptPhaseView): string {
  const total = Object.values(phase.counts).reduce((sum, count) => sum + count, 0);
  const done = finishedStatuses.reduce((sum, status) => sum + phase.counts[status], 0);
  const others = (['running', 'queued', 'failed', 'cancelled', 'reused'] as const)
    .filter((status) => phase.counts[status] > 0)
    .map((status) => `${phase.counts[status]} ${status}`);
  return `${phase.title}: ${done}/${total}${others.length > 0 ? ` (${others.join(', ')})` : ''}`;
}

/** One line of the run list: id, name, status, agents done/total, tokens, time, then each phase's counts. */
export function runListLine(listing: ScriptRunListing, nowMs: number): string {
  const snapshot = listing.snapshot;
  if (!snapshot) {
    // No worker answered: what visibility knows.
    const endedMs = listing.closeTime ? Date.parse(listing.closeTime) : undefined;
    return `${listing.runId}  ?  ${listing.executionStatus.toLowerCase()}  ${elapsedText(Date.parse(listing.startTime), endedMs, nowMs)}  (no worker answered; details unknown)`;
  }
  const { done, total } = agentCounts(snapshot);
  const phases = snapshot.phases.map(phaseSummary).join(' · ');
  return [
    listing.runId,
    snapshot.name,
    snapshot.status,
    `${done}/${total} agents`,
    `${compactTokens(totalTokens(snapshot.usage))} tok`,
    elapsedText(snapshot.startedAtMs, snapshot.endedAtMs, nowMs),
    ...(phases ? [phases] : []),
  ].join('  ');
}

/** The run list, or a sentence when there is none. */
export function runListText(listings: readonly ScriptRunListing[], nowMs: number): string {
  if (listings.length === 0) return 'No script runs (start one with `subagents run SCRIPT.js`).';
  return listings.map((listing) => runListLine(listing, nowMs)).join('\n');
}

/** `#3 [completed] reader "src/cli" (Read) · 1.2k tok · 14s`, with the run it was reused from or its error. */
export function agentLine(agent: ScriptAgentView, nowMs: number): string {
  const label = agent.label ? ` "${agent.label}"` : '';
  const phase = agent.phase ? ` (${agent.phase})` : '';
  const time = agent.startedAtMs === undefined ? '' : ` · ${elapsedText(agent.startedAtMs, agent.endedAtMs, nowMs)}`;
  const reused = agent.reusedFrom ? ` · reused from ${agent.reusedFrom}` : '';
  const error = agent.error ? ` · ${agent.error}` : '';
  return `#${agent.index} [${agent.status}] ${agent.agentType}${label}${phase} · ${compactTokens(agent.tokens)} tok${time}${reused}${error}`;
}

/** The run's header: name, status, agents, tokens, time, concurrency, resumed-from and the current phase. */
export function runHeader(snapshot: ScriptRunSnapshot, nowMs: number): string[] {
  const { done, total } = agentCounts(snapshot);
  const lines = [
    `${snapshot.runId}  ${snapshot.name} — ${snapshot.description}`,
    `status: ${snapshot.status}${snapshot.error ? ` (${snapshot.error})` : ''} · ${done}/${total} agents · ` +
      `${compactTokens(totalTokens(snapshot.usage))} tok · ${elapsedText(snapshot.startedAtMs, snapshot.endedAtMs, nowMs)} · ` +
      `up to ${snapshot.maxConcurrentAgents} at once`,
  ];
  if (snapshot.resumedFrom) lines.push(`resumed from ${snapshot.resumedFrom}`);
  if (snapshot.currentPhase && snapshot.status === 'running') lines.push(`phase: ${snapshot.currentPhase}`);
  return lines;
}

/** The run's phases, each with its counts, tokens and time. */
export function phaseLines(snapshot: ScriptRunSnapshot, nowMs: number): string[] {
  return snapshot.phases.map(
    (phase) =>
      `  ${phaseSummary(phase)} · ${compactTokens(phase.tokens)} tok · ${elapsedText(phase.startedAtMs, phase.endedAtMs, nowMs)}`,
  );
}

/** The result as text: a string as is, anything else as indented JSON. */
export function resultText(result: unknown): string {
  return typeof result === 'string' ? result : JSON.stringify(result, null, 2);
}

/** `subagents workflows RUNID`: header, phases, agents, logs, then the result or the error. */
export function runDetailText(snapshot: ScriptRunSnapshot, nowMs: number): string {
  const lines = [...runHeader(snapshot, nowMs)];
  if (snapshot.phases.length > 0) lines.push('', 'phases:', ...phaseLines(snapshot, nowMs));
  lines.push('', snapshot.agents.length > 0 ? 'agents:' : 'agents: none yet');
  for (const agent of snapshot.agents) lines.push(`  ${agentLine(agent, nowMs)}`);
  if (snapshot.logs.length > 0) {
    lines.push('', 'logs:');
    for (const log of snapshot.logs) lines.push(`  ${new Date(log.atMs).toISOString().slice(11, 19)} ${log.text}`);
  }
  if (snapshot.status === 'completed' && snapshot.result !== undefined)
    lines.push('', 'result:', resultText(snapshot.result));
  return lines.join('\n');
}

/** The live view of a run (watch, run --follow on a terminal): header, phases, the running and recent agents, the last logs. */
export function runFrameText(
  snapshot: ScriptRunSnapshot,
  nowMs: number,
  options: { agentLines?: number } = {},
): string {
  const shown = options.agentLines ?? 20;
  const running = snapshot.agents.filter((agent) => agent.status === 'running');
  const others = snapshot.agents.filter((agent) => agent.status !== 'running' && agent.status !== 'queued');
  const agents = [...running, ...others.slice(-Math.max(0, shown - running.length))];
  const queued = snapshot.agents.length - running.length - others.length;
  const lines = [...runHeader(snapshot, nowMs), ...phaseLines(snapshot, nowMs)];
  for (const agent of agents.slice(0, Math.max(shown, running.length))) lines.push(`  ${agentLine(agent, nowMs)}`);
  if (queued > 0) lines.push(`  … ${queued} queued`);
  const logs = snapshot.logs.slice(-5);
  if (logs.length > 0) lines.push('', ...logs.map((log) => `  › ${log.text}`));
  return lines.join('\n');
}
