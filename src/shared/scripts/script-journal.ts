// Resume of a script run from a previous run's journal: the call key and the longest-unchanged-prefix rule (docs/workflows.md).
// Workflow-safe: no Node APIs, deterministic.
import { textHash } from '../model/conversation-hash';
import type { ScriptJournalEntry, ScriptResumeSource } from './script-run';

/** `agent()` options that only change what views show, not what the agent does: left out of the call key. */
export const displayOnlyAgentOptions: readonly string[] = ['label', 'phase'];

/** JSON text with object keys sorted at every depth (undefined fields dropped, as JSON does). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value))
    return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const record = value as Record<string, unknown>;
  const fields = Object.keys(record)
    .filter((key) => record[key] !== undefined && typeof record[key] !== 'function')
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
  return `{${fields.join(',')}}`;
}

/** Digest of what decides an `agent()` call's outcome: its prompt and options but the display-only ones, key order aside. */
export function agentCallKey(prompt: string, options: Record<string, unknown>): string {
  const decisive: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) if (!displayOnlyAgentOptions.includes(key)) decisive[key] = value;
  const text = canonicalJson({ prompt, options: decisive });
  // The length next to the 53-bit hash makes an accidental match of two different calls even less likely.
  return `${textHash(text)}-${text.length.toString(16)}`;
}

/** Why a resume stopped reusing: the first call that ran live and what was different about it. */
export type ReplayStop =
  | { index: number; reason: 'changed' }
  | { index: number; reason: 'not-completed'; status: ScriptJournalEntry['status'] }
  | { index: number; reason: 'not-in-journal' }
  | { index: number; reason: 'out-of-order'; expected: number };

/** Answers a new run's `agent()` calls from an old run's journal while every call so far is unchanged (the longest prefix). */
export class JournalReplay {
  private readonly entries = new Map<number, ScriptJournalEntry>();
  private next = 1;
  private firstLive: ReplayStop | undefined;
  private reusedCalls = 0;

  constructor(private readonly source?: ScriptResumeSource) {
    for (const entry of source?.journal ?? []) this.entries.set(entry.index, entry);
  }

  /** The old entry for call `index` (from 1, in call order) if it and every call before it matched; else undefined, for good. */
  take(index: number, key: string): ScriptJournalEntry | undefined {
    if (!this.source || this.firstLive) return undefined;
    const expected = this.next;
    this.next = index + 1;
    if (index !== expected) return this.halt({ index, reason: 'out-of-order', expected });
    const entry = this.entries.get(index);
    if (!entry) return this.halt({ index, reason: 'not-in-journal' });
    if (entry.key !== key) return this.halt({ index, reason: 'changed' });
    if (entry.status !== 'completed') return this.halt({ index, reason: 'not-completed', status: entry.status });
    this.reusedCalls++;
    return entry;
  }

  /** The run the journal came from, if any. */
  get fromRunId(): string | undefined {
    return this.source?.runId;
  }

  /** Calls answered from the journal so far. */
  get reused(): number {
    return this.reusedCalls;
  }

  /** The first call that ran live, once one did. */
  get stop(): ReplayStop | undefined {
    return this.firstLive;
  }

  private halt(stop: ReplayStop): undefined {
    this.firstLive = stop;
    return undefined;
  }
}

/** In words, for logs: how many calls a resume reused and where (and why) it stopped. */
export function describeReplay(replay: JournalReplay): string {
  const runId = replay.fromRunId;
  if (runId === undefined) return 'Not a resume: every agent() call runs live.';
  const reused = `Reused ${replay.reused} agent() ${replay.reused === 1 ? 'call' : 'calls'} of run ${runId}`;
  const stop = replay.stop;
  if (!stop) return `${reused}; every call so far matched.`;
  const tail = `so call ${stop.index} and every later call ran live`;
  switch (stop.reason) {
    case 'changed':
      return `${reused}; call ${stop.index} changed (its prompt or options differ), ${tail}.`;
    case 'not-completed':
      return `${reused}; call ${stop.index} ${stop.status === 'failed' ? 'failed' : 'was cancelled'} in run ${runId}, ${tail}.`;
    case 'not-in-journal':
      return `${reused}; call ${stop.index} had not finished in run ${runId}, ${tail}.`;
    case 'out-of-order':
      return `${reused}; call ${stop.index} came where call ${stop.expected} was expected, ${tail}.`;
  }
}
