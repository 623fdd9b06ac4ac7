// bench:overhead's conversation, which bench:promises counts too: turns of two Reads of small files, then an answer.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Turn } from '../../src/model-server/server';

/**
 * Every turn but the last: two Reads of small files, run side by side (as the runtime runs read-only tools).
 * Read takes about a millisecond; Glob and Bash start a process (ripgrep, a shell: 30-60 ms each on a loaded
 * 2-core machine), which would hide most of the runtime's own cost in the in-process baseline.
 */
const toolUses = [
  { name: 'Read', input: { file_path: 'notes.txt' } },
  { name: 'Read', input: { file_path: 'todo.txt' } },
];

/** `turns` turns of the two Reads, then the final answer; each answer `delayMs` late (the model's latency). */
export function readTurns(turns: number, delayMs = 0): Turn[] {
  return [
    ...Array.from({ length: turns }, (_, index): Turn => ({ text: `Turn ${index + 1}.`, toolUses, delayMs })),
    { text: 'Overhead benchmark done.', delayMs },
  ];
}

/**
 * How many more promises the runtime's workflow code makes for a model call of this conversation (the call,
 * its two Reads, the turn) than the durable bare loop (`floorDurableLoop`) makes for the same requests:
 * bench:promises counted 68.5 against 21.5 (2 December 2026), 32.3 since a turn's Reads come back with its
 * model call and settle without steps of their own (src/workflows/tools/pre-reads.ts). bench:overhead runs the durable bare loop once
 * more with this many extra promises a call, to show what they alone cost; bench:promises says when the
 * runtime's count has moved away from it.
 */
export const runtimeExtraPromisesPerCall = 11;

/** The files the Reads read, in the agents' working directory. */
export function writeReadFiles(workspace: string): void {
  writeFileSync(
    path.join(workspace, 'notes.txt'),
    Array.from({ length: 20 }, (_, index) => `note ${index}: keep the overhead small`).join('\n'),
  );
  writeFileSync(
    path.join(workspace, 'todo.txt'),
    Array.from({ length: 10 }, (_, index) => `todo ${index}: measure, then optimise`).join('\n'),
  );
}
