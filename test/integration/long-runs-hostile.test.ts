import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentTestEnv, type AgentTestEnv } from '../helpers/agent-env';
import { waitFor } from '../helpers/child-worker';

let env: AgentTestEnv;

beforeAll(async () => {
  env = await createAgentTestEnv({ kind: 'echo' });
});
afterAll(async () => {
  await env?.close();
});

const cli = path.join(import.meta.dirname, '..', '..', 'bin', 'subagents.js');

async function subagents(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const cliEnv = { ...process.env, TEMPORAL_ADDRESS: env.temporal.address, SUBAGENTS_TASK_QUEUE: env.taskQueue };
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [cli, ...args], { env: cliEnv, encoding: 'utf8' });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const updateError = async (promise: Promise<unknown>): Promise<string> => {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(WorkflowUpdateFailedError);
  return (outcome as WorkflowUpdateFailedError).cause?.message ?? '';
};

describe('hostile input to the long-run handlers', () => {
  it('refuses bad compact, transcript and resumeDescendant inputs with the reason, and the agent goes on working', { timeout: 180_000 }, async () => {
    const handle = await env.start({ prompt: 'LONG-RUN-HOSTILE', name: 'long-hostile', interactive: { idleTimeoutMs: 120_000 } });
    await waitFor(async () => (await handle.status()).waitingFor === 'the next message', 30_000, 'the agent waiting');
    const workflow = env.temporal.client.workflow.getHandle(handle.agentId);

    for (const value of [5, 'x', [1, 2], { instructions: 7 }, { by: '' }, { instructions: 'i'.repeat(5000) }, { by: 'b'.repeat(600) }]) {
      expect(await updateError(workflow.executeUpdate('compact', { args: [value] }))).toMatch(/^Invalid compact input/);
    }
    for (const value of [{ from: -1 }, { from: 'x' }, { from: 1.5 }, 'x', [1]]) {
      await expect(workflow.query('transcript', value)).rejects.toThrow(/Invalid transcript query input/);
    }
    // No input at all reads from the start.
    expect((await workflow.query<{ total: number }, [unknown]>('transcript', null)).total).toBeGreaterThan(0);

    const descendant = `${handle.agentId}.9`;
    for (const value of [null, {}, { agentId: descendant }, { agentId: descendant, prompt: '   ' }, { agentId: descendant, prompt: 'p'.repeat(1_100_000) }, { agentId: 5, prompt: 'x' }]) {
      expect(await updateError(workflow.executeUpdate('resumeDescendant', { args: [value] }))).toMatch(/^Invalid resumeDescendant input/);
    }
    expect(await updateError(workflow.executeUpdate('resumeDescendant', { args: [{ agentId: 'agent-elsewhere.1', prompt: 'x' }] }))).toContain(
      `agent-elsewhere.1 is not a descendant of ${handle.agentId}`,
    );
    expect(await updateError(workflow.executeUpdate('resumeDescendant', { args: [{ agentId: handle.agentId, prompt: 'x' }] }))).toContain('is not a descendant');
    expect(await updateError(workflow.executeUpdate('resumeDescendant', { args: [{ agentId: descendant, prompt: 'x' }] }))).toContain(
      `ResumeRefused: ${descendant} cannot be resumed: AgentNotFound: no agent "${descendant}"`,
    );
    // A steer too large for the agent's context is refused to its sender (the update) with what to do.
    expect(await updateError(workflow.executeUpdate('steer', { args: [{ text: 's'.repeat(900_000) }] }))).toContain('MessageTooLarge');

    // The agent is not wedged: it answers the next message.
    await env.client.send(handle.agentId, 'STILL-THERE');
    await waitFor(async () => JSON.stringify(await handle.messages()).includes('STILL-THERE'), 30_000, 'the message delivered');
    await waitFor(async () => (await handle.status()).waitingFor === 'the next message', 30_000, 'the agent waiting again');
    await handle.close();
    expect((await handle.result()).status).toBe('completed');
  });

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
