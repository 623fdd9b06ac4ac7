// @slow
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { modelCallsOf, useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { waitFor } from '../helpers/child-worker';
import { runCli } from '../helpers/cli-process';
import { agentNamed, agentPrompted, spawn } from '../helpers/scripted-agents';

const env = useAgentTestEnv();

const subagents = (args: string[]) => runCli(env, args);

const updateError = async (promise: Promise<unknown>): Promise<string> => {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(WorkflowUpdateFailedError);
  return (outcome as WorkflowUpdateFailedError).cause?.message ?? '';
};

describe('hostile input to the long-run handlers', () => {
  it(
    'refuses bad compact, transcript and resumeDescendant inputs with the reason, and the agent goes on working',
    { timeout: 180_000 },
    async () => {
      const handle = await env.start({
        prompt: 'LONG-RUN-HOSTILE',
        name: 'long-hostile',
        interactive: { idleTimeoutMs: 120_000 },
      });
      await waitFor(async () => (await handle.status()).waitingFor === 'the next message', 30_000, 'the agent waiting');
      const workflow = env.temporal.client.workflow.getHandle(handle.agentId);

      for (const value of [
        5,
        'x',
        [1, 2],
        { instructions: 7 },
        { by: '' },
        { instructions: 'i'.repeat(5000) },
        { by: 'b'.repeat(600) },
      ]) {
        expect(await updateError(workflow.executeUpdate('compact', { args: [value] }))).toMatch(
          /^Invalid compact input/,
        );
      }
      for (const value of [{ from: -1 }, { from: 'x' }, { from: 1.5 }, 'x', [1]]) {
        await expect(workflow.query('transcript', value)).rejects.toThrow(/Invalid transcript query input/);
      }
      // No input at all reads from the start.
      expect((await workflow.query<{ total: number }, [unknown]>('transcript', null)).total).toBeGreaterThan(0);

      const descendant = `${handle.agentId}.9`;
      for (const value of [
        null,
        {},
        { agentId: descendant },
        { agentId: descendant, prompt: '   ' },
        { agentId: descendant, prompt: 'p'.repeat(1_100_000) },
        { agentId: 5, prompt: 'x' },
      ]) {
        expect(await updateError(workflow.executeUpdate('resumeDescendant', { args: [value] }))).toMatch(
          /^Invalid resumeDescendant input/,
        );
      }
      expect(
        await updateError(
          workflow.executeUpdate('resumeDescendant', { args: [{ agentId: 'agent-elsewhere.1', prompt: 'x' }] }),
        ),
      ).toContain(`agent-elsewhere.1 is not a descendant of ${handle.agentId}`);
      expect(
        await updateError(
          workflow.executeUpdate('resumeDescendant', { args: [{ agentId: handle.agentId, prompt: 'x' }] }),
        ),
      ).toContain('is not a descendant');
      expect(
        await updateError(workflow.executeUpdate('resumeDescendant', { args: [{ agentId: descendant, prompt: 'x' }] })),
      ).toContain(`ResumeRefused: ${descendant} cannot be resumed: AgentNotFound: no agent "${descendant}"`);
      // A steer too large for the agent's context is refused to its sender (the update) with what to do.
      expect(await updateError(workflow.executeUpdate('steer', { args: [{ text: 's'.repeat(900_000) }] }))).toContain(
        'MessageTooLarge',
      );

      // The agent is not wedged: it answers the next message.
      await env.client.send(handle.agentId, 'STILL-THERE');
      await waitFor(
        async () => JSON.stringify(await handle.messages()).includes('STILL-THERE'),
        30_000,
        'the message delivered',
      );
      await waitFor(
        async () => (await handle.status()).waitingFor === 'the next message',
        30_000,
        'the agent waiting again',
      );
      await handle.close();
      expect((await handle.result()).status).toBe('completed');
    },
  );

  it(
    'answers hostile TaskOutput inputs from the model with clear errors, and the agent goes on',
    { timeout: 180_000 },
    async () => {
      env.script(
        agentNamed('task-output-hostile', [
          {
            toolUses: [spawn('quick child', 'HOSTILE-PEEK-CHILD', { name: 'quick' })],
          },
          {
            toolUses: [
              { name: 'TaskOutput', input: { task_id: 42 } },
              { name: 'TaskOutput', input: { task_id: null, block: null, timeout: null } },
              { name: 'TaskOutput', input: { task_id: 'quick', timeout: -5 } },
              { name: 'TaskOutput', input: { task_id: 'quick', timeout: 'soon' } },
              { name: 'TaskOutput', input: { task_id: 'x'.repeat(100_000) } },
              { name: 'TaskOutput', input: { task_id: '../../etc/passwd', block: false } },
              { name: 'TaskOutput', input: { task_id: 'quick', extra: { nested: [1, 2, 3] } } },
              { name: 'TaskOutput', input: { task_id: 'quick', timeout: 1e15 } },
            ],
          },
          { text: 'HOSTILE-PEEK-DONE' },
        ]),
        agentPrompted('HOSTILE-PEEK-CHILD', [{ text: 'QUICK-CHILD-ANSWER' }]),
      );
      const { handle, result } = await runCompleted(env, {
        prompt: 'peek with bad inputs',
        name: 'task-output-hostile',
      });
      expect(result.finalText).toBe('HOSTILE-PEEK-DONE');
      const requests = modelCallsOf(env.modelServer, handle.agentId);
      const body = JSON.parse(requests[2]!.rawBody) as {
        messages: { content: { type: string; is_error?: boolean; content?: unknown }[] }[];
      };
      const answers = body.messages[body.messages.length - 1]!.content.filter((block) => block.type === 'tool_result');
      const textOf = (index: number) => String(answers[index]!.content);
      expect(answers).toHaveLength(8);
      expect(answers[0]!.is_error).toBe(true);
      expect(textOf(0)).toContain('InvalidToolInput: TaskOutput: "task_id" must be a string');
      // Nulls are the defaults: the listing form, with no running subagents left.
      expect(textOf(1)).toBe('No running subagents.');
      expect(textOf(2)).toContain('"timeout" must be a number of milliseconds from 0 to 600000');
      expect(textOf(3)).toContain('"timeout" must be a number of milliseconds');
      expect(answers[4]!.is_error).toBe(true);
      expect(textOf(4)).toContain('among your own subagents');
      // The id is not echoed whole.
      expect(textOf(4).length).toBeLessThan(1000);
      expect(textOf(5)).toContain('No task "../../etc/passwd" among your own subagents');
      expect(textOf(6)).toContain('unknown field "extra"');
      // A huge timeout is capped, and a finished child answers at once.
      expect(answers[7]!.is_error).toBeUndefined();
      expect(textOf(7)).toContain('QUICK-CHILD-ANSWER');
    },
  );

  it('gives the CLI clear errors for compact and resume', async () => {
    const missing = await subagents(['compact']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Give an agentId');
    const unknown = await subagents(['compact', 'agent-nobody-here']);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain('No agent "agent-nobody-here"');
    const bogus = await subagents(['resume', 'agent-x', 'go', '--bogus']);
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toContain("Unknown option '--bogus'");

    const handle = await env.start({ prompt: 'finish quickly', name: 'compact-finished' });
    await handle.result();
    const finished = await subagents(['compact', handle.agentId]);
    expect(finished.code).toBe(1);
    expect(finished.stderr).toContain(`Agent ${handle.agentId} has already finished (completed)`);
  });
});
