// The activities of bench:floor's bare workflows: stand-ins for a model call, a turn's Reads and an
// agent's start, with nothing of the runtime in them. They run in the bench's own process, so what
// they record (when each call started and ended) is read by the bench directly.
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';

/** When each `call` started and ended, by label (e.g. a child's workflow id). */
export const callTimes = new Map<string, { startedAt: number; endedAt: number }>();

/** A model call: waits `latencyMs` and answers with a short text (about what a scripted turn returns). */
export async function call(label: string, latencyMs: number): Promise<string> {
  const startedAt = Date.now();
  if (latencyMs > 0) await sleep(latencyMs);
  callTimes.set(label, { startedAt, endedAt: Date.now() });
  return `answer of ${label}`;
}

/** A turn's Reads, run as one local activity like the runtime's `readBatch`. */
export async function read(paths: string[]): Promise<string[]> {
  return Promise.all(paths.map((file) => readFile(file, 'utf8')));
}

/** An agent's start (its system prompt), run as a local activity like `renderAgentStart`: a few KB of text. */
export async function render(agentId: string): Promise<string> {
  return `You are ${agentId}. ${'Follow the instructions. '.repeat(120)}`;
}

/** Waits until cancelled, heartbeating every second (a model call or a tool in flight). */
export async function wait(): Promise<void> {
  const context = Context.current();
  for (;;) {
    context.heartbeat();
    await Promise.race([sleep(1000), context.cancelled]);
  }
}
