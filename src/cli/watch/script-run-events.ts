/** What changed in a script run between two snapshots, as `watch` and `run --follow` print it line by line. Pure. */
import type { ScriptAgentView, ScriptRunSnapshot } from '../../shared/scripts/script-run';
import { agentLine, compactTokens } from '../workflows-view';
import { totalTokens } from '../../shared/model/messages';

/** One change of a run (`--json` prints each as a line). */
export type ScriptRunEvent =
  | { event: 'phase'; title: string }
  | { event: 'agent_started'; agent: ScriptAgentView }
  | { event: 'agent_finished'; agent: ScriptAgentView }
  | { event: 'log'; atMs: number; text: string }
  | { event: 'run_finished'; status: ScriptRunSnapshot['status']; tokens: number; error?: string };

const ended = (agent: ScriptAgentView | undefined): boolean =>
  agent !== undefined && agent.status !== 'queued' && agent.status !== 'running';

/** Logs of `next` after the last one `previous` had (the run drops its oldest lines past its limit). */
function newLogs(previous: ScriptRunSnapshot | undefined, next: ScriptRunSnapshot): ScriptRunSnapshot['logs'] {
  const last = previous?.logs[previous.logs.length - 1];
  if (!last) return next.logs;
  for (let index = next.logs.length - 1; index >= 0; index--) {
    const log = next.logs[index]!;
    if (log.atMs === last.atMs && log.text === last.text) return next.logs.slice(index + 1);
  }
  return next.logs.filter((log) => log.atMs >= last.atMs);
}

/** The events from `previous` to `next`: phases entered, agents started and finished, logs, then the run's end. */
export function scriptRunEvents(previous: ScriptRunSnapshot | undefined, next: ScriptRunSnapshot): ScriptRunEvent[] {
  const events: ScriptRunEvent[] = [];
  const seenPhases = new Set(previous?.phases.map((phase) => phase.title));
  for (const phase of next.phases)
    if (!seenPhases.has(phase.title)) events.push({ event: 'phase', title: phase.title });
  const before = new Map(previous?.agents.map((agent) => [agent.index, agent]));
  for (const agent of next.agents) {
    const old = before.get(agent.index);
    // An agent seen for the first time already finished (a fast one, or one reused) gets its end only.
    if (agent.status === 'running' && old?.status !== 'running') events.push({ event: 'agent_started', agent });
    if (ended(agent) && !ended(old)) events.push({ event: 'agent_finished', agent });
  }
  for (const log of newLogs(previous, next)) events.push({ event: 'log', atMs: log.atMs, text: log.text });
  if (next.status !== 'running' && previous?.status !== next.status)
    events.push({
      event: 'run_finished',
      status: next.status,
      tokens: totalTokens(next.usage),
      ...(next.error ? { error: next.error } : {}),
    });
  return events;
}

/** A plain line of an event: `12:00:01 phase Read`, `12:00:02 started #1 ...`. */
export function scriptRunEventLine(event: ScriptRunEvent, nowMs: number): string {
  const time = new Date(event.event === 'log' ? event.atMs : nowMs).toISOString().slice(11, 19);
  switch (event.event) {
    case 'phase':
      return `${time} phase ${event.title}`;
    case 'agent_started':
      return `${time} started ${agentLine(event.agent, nowMs)}`;
    case 'agent_finished':
      return `${time} finished ${agentLine(event.agent, nowMs)}`;
    case 'log':
      return `${time} log ${event.text}`;
    case 'run_finished':
      return `${time} run ${event.status}${event.error ? ` (${event.error})` : ''} · ${compactTokens(event.tokens)} tok`;
  }
}
