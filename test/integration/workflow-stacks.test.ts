import { describe, expect, it } from 'vitest';
import { workflowStackFrames } from '../../src/workflows/runtime/stack-frames';
import { useAgentTestEnv } from '../helpers/agent-env';
import { waitFor } from '../helpers/child-worker';
import { agentNamed } from '../helpers/scripted-agents';

// The worker preloads src/workflows/runtime/stack-frames.ts into its workflow context: the SDK's stack capture of
// every promise records 5 frames (two of them its own hook), so the `__stack_trace` query the Temporal
// UI shows keeps the three innermost frames of workflow code for each pending promise.

const env = useAgentTestEnv();

/** The `at …` lines of each stack the SDK's stack trace query returns. */
function framesOf(stackTrace: string): string[][] {
  return stackTrace
    .split(/\n\s*\n/)
    .map((stack) => stack.split('\n').filter((line) => /^\s*at /.test(line)))
    .filter((frames) => frames.length > 0);
}

describe('stack depth of workflow code', () => {
  it("keeps each pending promise's three innermost frames in the stack trace query, no more", async () => {
    env.script(agentNamed('stack-frames', [{ text: 'late answer', delayMs: 60_000 }]));
    const handle = await env.start({ prompt: 'answer slowly', name: 'stack-frames' });
    const workflow = env.temporal.client.workflow.getHandle(handle.agentId);
    await waitFor(
      async () => ((await workflow.describe()).raw.pendingActivities ?? []).length > 0,
      30_000,
      'the model call to be under way',
    );
    const stacks = framesOf(await workflow.query<string>('__stack_trace'));
    expect(stacks.length).toBeGreaterThan(0);
    // Cut at the limit, not short by nature: the agent waiting for its model call is deeper than three frames.
    for (const frames of stacks) expect(frames.length, frames.join('\n')).toBeLessThanOrEqual(workflowStackFrames - 2);
    expect(stacks.some((frames) => frames.length === workflowStackFrames - 2)).toBe(true);
    // Still useful: the frames name the runtime's own source, mapped back from the bundle.
    expect(stacks.flat().some((line) => /src\/workflows\/[\w/-]+\.ts:\d+/.test(line))).toBe(true);
    await handle.stop({ by: 'test', reason: 'done looking' });
  });
});
