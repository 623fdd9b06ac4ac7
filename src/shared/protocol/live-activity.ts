import type { TokenUsage } from '../model/messages';

// Heartbeat details for people watching; never read by workflow code, never in history (docs/cli.md).

/** Bounds and rate of live details. */
export const liveLimits = {
  /** The model's streamed text kept in the details: its last characters. */
  textTailChars: 2048,
  /** A Bash call's output kept in the details: its last lines, each cut to `lineChars`. */
  outputLines: 5,
  lineChars: 200,
  /** Details are refreshed at most this often (the worker's heartbeat throttle bounds what reaches the server). */
  intervalMs: 1000,
} as const;

/** A model call's details: the text streamed so far (its tail) and the tool being called. */
export interface LiveModelDetails {
  kind: 'model';
  turn: number;
  /** The last `liveLimits.textTailChars` characters of the text streamed in this call. */
  text: string;
  /** Characters of text streamed in this call. */
  textChars: number;
  /** The tool_use block being streamed now, if any. */
  tool?: string;
  /** Server-sent events received. */
  events: number;
  /** A budgeted call (docs/budgets.md): the attempt and what its attempts so far were billed, read by the next attempt after a crash. */
  billing?: { attempt: number; billed?: TokenUsage; before: TokenUsage; charged: boolean };
}

/** A tool call's details: how far it has got. */
export interface LiveToolDetails {
  kind: 'tool';
  tool: string;
  /** Bash: the last lines of output so far. */
  lines?: string[];
  /** Bash: characters of output so far. */
  outputChars?: number;
  /** Glob/Grep: files listed so far. */
  filesListed?: number;
}

export type LiveDetails = LiveModelDetails | LiveToolDetails;

/** The live details in an unknown heartbeat value, or undefined (tolerant: details come from any worker version). */
export function parseLiveDetails(value: unknown): LiveDetails | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const details = value as Partial<LiveModelDetails> & Partial<LiveToolDetails>;
  if (details.kind === 'model' && typeof details.text === 'string' && typeof details.turn === 'number')
    return details as LiveModelDetails;
  if (details.kind === 'tool' && typeof details.tool === 'string') return details as LiveToolDetails;
  return undefined;
}

/** The last `count` non-empty lines of `text`, each cut to `lineChars`. */
export function lastLines(
  text: string,
  count: number = liveLimits.outputLines,
  lineChars: number = liveLimits.lineChars,
): string[] {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  return lines.slice(-count).map((line) => (line.length > lineChars ? `${line.slice(0, lineChars - 1)}…` : line));
}
