// @slow
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findTemporalCli } from '../../src/dev/temporal-cli';
import { useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { waitFor } from '../helpers/child-worker';
import { recordHistory } from '../helpers/histories';
import { agentNamed, agentPrompted, bash, spawn, spawnInBackground } from '../helpers/scripted-agents';
import {
  answeredRequestsOf,
  requestsOf as requestsFrom,
  type ContentBlock,
  type RequestBody,
} from '../helpers/model-requests';

const env = useAgentTestEnv();

const requestsOf = (agentId: string) => requestsFrom(env.modelServer, agentId);

const okRequestsOf = (agentId: string) => answeredRequestsOf(env.modelServer, agentId);

function blocks(message: RequestBody['messages'][number]): ContentBlock[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

function allText(body: RequestBody): string {
  return JSON.stringify(body.messages);
}

async function closedStatus(workflowId: string): Promise<string> {
  return (await env.temporal.client.workflow.getHandle(workflowId).describe()).status.name;
}

async function runningInTree(rootId: string): Promise<number> {
  let running = 0;
  for await (const _execution of env.temporal.client.workflow.list({
    query: `RootAgentId = '${rootId}' AND ExecutionStatus = 'Running'`,
  }))
    running += 1;
  return running;
}

describe('control plane: interrupt', () => {
  it('interrupts a model call; the interactive agent continues on a new message with a valid conversation', async () => {
    env.script(
      // The interrupted call left no assistant message, so the next call is turn 0 again: tell it apart by its text.
      {
        match: { agentName: 'int-model', userIncludes: 'please continue briefly' },
        turns: [{ text: 'AFTER-INTERRUPT: {{last_user_text}}' }],
      },
      agentNamed('int-model', [{ text: 'this answer is too slow', delayMs: 20_000 }]),
    );
    const handle = await env.start({ prompt: 'start slow', name: 'int-model', interactive: { idleTimeoutMs: 60_000 } });
    await waitFor(() => requestsOf(handle.agentId).length >= 1, 30_000, 'the first model call');
    await handle.interrupt({ by: 'tester', reason: 'too slow' });
    await waitFor(async () => (await handle.status()).state === 'waiting', 30_000, 'the agent to wait for a message');
    await env.client.send(handle.agentId, 'please continue briefly');
    await waitFor(() => okRequestsOf(handle.agentId).length >= 1, 30_000, 'the next model call');
    await handle.close();
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(result.finalText).toContain('AFTER-INTERRUPT');
    const next = okRequestsOf(handle.agentId)[0]!;
    expect(allText(next)).toContain('[Request interrupted by user]');
    expect(allText(next)).toContain('please continue briefly');
    expect(next.messages.filter((message) => message.role === 'assistant')).toHaveLength(0);
  });

  it('interrupts tools with 3 foreground children: all cancelled, every tool_use answered, then continues', async () => {
    env.script(
      agentNamed('int-tools', [
        {
          toolUses: [1, 2, 3].map((index) => spawn(`slow child ${index}`, `slow child task ${index}`)),
        },
        { text: 'RESUMED-AFTER-INTERRUPT' },
      ]),
      {
        match: { userIncludes: 'slow child task' },
        turns: Array.from({ length: 30 }, () => ({
          toolUses: [{ name: 'Glob', input: { pattern: '*.none' } }],
          delayMs: 400,
        })),
      },
    );
    const handle = await env.start({
      prompt: 'spawn three',
      name: 'int-tools',
      interactive: { idleTimeoutMs: 60_000 },
    });
    const children = [1, 2, 3].map((index) => `${handle.agentId}.${index}`);
    await waitFor(() => children.every((child) => okRequestsOf(child).length >= 2), 60_000, 'three children running');
    await handle.interrupt();
    await waitFor(
      async () => (await handle.status()).state === 'waiting',
      60_000,
      'the root to wait after the interrupt',
    );
    for (const child of children) expect(await closedStatus(child)).toBe('CANCELLED');
    await env.client.send(handle.agentId, 'go on');
    await waitFor(() => okRequestsOf(handle.agentId).length >= 2, 30_000, 'the next call');
    await handle.close();
    const result = await handle.result();
    expect(result.finalText).toBe('RESUMED-AFTER-INTERRUPT');
    const next = okRequestsOf(handle.agentId)[1]!;
    const answered = next.messages.flatMap(blocks).filter((block) => block.type === 'tool_result');
    expect(answered).toHaveLength(3);
    for (const block of answered) {
      expect(block.is_error).toBe(true);
      // The turn was cancelled while each Agent call waited for its child: every call gets the interrupt's synthesized result.
      expect(block.content).toBe('Interrupted by user before this tool finished.');
    }
    await recordHistory(env.temporal.client, handle.agentId, 'control-interrupt-tools');
  });
});

describe('control plane: stop', () => {
  it('stops the root of a 3-level tree of 10 agents, background ones included: nothing left running', async () => {
    env.script(
      agentNamed('stop-root', [
        {
          toolUses: [
            spawn('fg a', 'middle agent a'),
            spawn('fg b', 'middle agent b'),
            spawnInBackground('bg c', 'middle agent c'),
          ],
        },
        { text: 'never reached' },
      ]),
      agentPrompted('middle agent', [
        { toolUses: [spawnInBackground('leaf 1', 'leaf work 1'), spawnInBackground('leaf 2', 'leaf work 2')] },
        { text: 'middle waits' },
        { text: 'middle done' },
      ]),
      {
        match: { userIncludes: 'leaf work' },
        turns: Array.from({ length: 60 }, () => ({
          toolUses: [{ name: 'Glob', input: { pattern: '*.none' } }],
          delayMs: 300,
        })),
      },
    );
    const handle = await env.start({ prompt: 'build a tree', name: 'stop-root' });
    const ids = [
      handle.agentId,
      ...[1, 2, 3].flatMap((index) => [
        `${handle.agentId}.${index}`,
        `${handle.agentId}.${index}.1`,
        `${handle.agentId}.${index}.2`,
      ]),
    ];
    expect(ids).toHaveLength(10);
    await waitFor(() => ids.slice(1).every((id) => okRequestsOf(id).length >= 1), 60_000, 'all 10 agents running');
    await handle.stop({ by: 'tester', reason: 'enough' });
    await expect(handle.result()).rejects.toThrow();
    for (const id of ids) expect(await closedStatus(id)).toBe('CANCELLED');
    await waitFor(async () => (await runningInTree(handle.agentId)) === 0, 30_000, 'visibility to show 0 running');
    // The parents saw "stopped by …" results from their children.
    const middle = await env.client.getAgent(`${handle.agentId}.3`).status();
    expect(middle.result?.error).toContain('stopped by');
    await recordHistory(env.temporal.client, `${handle.agentId}.1`, 'control-stop-middle');
  });
});

describe('control plane: steer', () => {
  it('delivers a steer after the tool results of the next request, and reports one that came too late', async () => {
    env.script(
      agentNamed('steer-root', [{ toolUses: [bash('sleep 2; echo slow')] }, { text: 'steered: {{last_user_text}}' }]),
      agentNamed('steer-late', [{ toolUses: [bash('sleep 2')] }, { text: 'late' }]),
    );
    const handle = await env.start({ prompt: 'steer me', name: 'steer-root' });
    await waitFor(async () => (await handle.status()).state === 'running_tools', 30_000, 'the Bash call');
    const ack = await handle.steer('FOCUS-ON-TESTS');
    expect(ack.queued).toBe(true);
    const result = await handle.result();
    expect(result.finalText).toContain('FOCUS-ON-TESTS');
    const next = okRequestsOf(handle.agentId)[1]!;
    const last = blocks(next.messages[next.messages.length - 1]!);
    expect(last[0]!.type).toBe('tool_result');
    expect(last[1]!.text).toContain('FOCUS-ON-TESTS');
    await expect(handle.steer('too late now')).rejects.toThrow(/already finished; the steer was not delivered/);

    const late = await env.start({ prompt: 'steer me late', name: 'steer-late', maxTurns: 1 });
    await waitFor(async () => (await late.status()).state === 'running_tools', 30_000, 'the Bash call');
    await late.steer('NEVER-DELIVERED');
    const lateResult = await late.result();
    expect(lateResult.status).toBe('max_turns');
    expect(lateResult.undelivered?.join('')).toContain('NEVER-DELIVERED');
  });
});

describe('control plane: pause spawning', () => {
  it('refuses new spawns while paused, lets running children go on, and allows spawns after resume', async () => {
    env.script(
      agentNamed('pause-root', [
        { toolUses: [spawnInBackground('runner', 'keep running a bit')] },
        { toolUses: [bash('sleep 2')] },
        { toolUses: [spawn('while paused', 'paused spawn')] },
        { toolUses: [bash('sleep 2')] },
        { toolUses: [spawn('after resume', 'resumed spawn')] },
        { text: 'pause test done' },
        { text: 'notified' },
      ]),
      agentPrompted('keep running a bit', [{ text: 'runner finished', delayMs: 3000 }]),
      agentPrompted('resumed spawn', [{ text: 'resumed child ok' }]),
    );
    const handle = await env.start({ prompt: 'pause test', name: 'pause-root' });
    await waitFor(() => okRequestsOf(handle.agentId).length >= 2, 30_000, 'the first Bash');
    await handle.pauseSpawning(true);
    await waitFor(() => okRequestsOf(handle.agentId).length >= 4, 30_000, 'the second Bash');
    await handle.pauseSpawning(false);
    const result = await handle.result();
    expect(result.status).toBe('completed');
    const requests = okRequestsOf(handle.agentId);
    const paused = blocks(requests[3]!.messages[requests[3]!.messages.length - 1]!)[0]!;
    expect(paused.is_error).toBe(true);
    expect(JSON.stringify(paused.content)).toContain('spawning is paused');
    const resumed = blocks(requests[5]!.messages[requests[5]!.messages.length - 1]!)[0]!;
    expect(JSON.stringify(resumed.content)).toContain('resumed child ok');
    expect((await env.temporal.client.workflow.getHandle(`${handle.agentId}.1`).describe()).status.name).toBe(
      'COMPLETED',
    );
    const tree = await handle.tree();
    // The refused spawn used up id .2: ids stay unique.
    expect(tree.nodes.map((node) => node.agentId).sort()).toEqual([`${handle.agentId}.1`, `${handle.agentId}.3`]);
  });
});

describe('control plane: approvals', () => {
  it('bubbles approvals from a foreground child to the root; approve, deny, and survive a worker restart', async () => {
    env.script(
      agentNamed('approve-root', [
        {
          toolUses: [
            { name: 'Bash', input: { command: 'echo approved-run >> approvals.txt', description: 'append a line' } },
          ],
        },
        { toolUses: [spawn('writer child', 'write a file please')] },
        { text: 'approvals done: {{last_tool_result}}' },
      ]),
      agentPrompted('write a file please', [
        { toolUses: [{ name: 'Write', input: { file_path: 'denied.txt', content: 'nope' } }] },
        { text: 'child saw: {{last_tool_result}}' },
      ]),
    );
    const handle = await env.start({ prompt: 'approval test', name: 'approve-root', permissionMode: 'default' });
    await waitFor(async () => (await handle.approvals()).length === 1, 30_000, 'the first approval request');
    const [first] = await handle.approvals();
    expect(first).toMatchObject({ agentId: handle.agentId, tool: 'Bash', inputSummary: 'Bash append a line' });
    expect((await handle.status()).pendingApprovals).toBe(1);

    // Restart the worker while the request waits: nothing is lost or restarted.
    env.worker.shutdown();
    await env.restartWorker();
    await handle.answerApproval(first!.requestId, { approve: true });
    await waitFor(async () => (await handle.approvals()).length === 1, 30_000, "the child's approval request");
    const [second] = await handle.approvals();
    expect(second).toMatchObject({ agentId: `${handle.agentId}.1`, tool: 'Write' });
    await handle.answerApproval(second!.requestId, { approve: false, reason: 'not that file' });
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(readFileSync(path.join(env.workspace, 'approvals.txt'), 'utf8')).toBe('approved-run\n');
    expect(existsSync(path.join(env.workspace, 'denied.txt'))).toBe(false);
    expect(result.finalText).toContain('Permission denied by user: not that file');
    await expect(handle.answerApproval('no-such-request', { approve: true })).rejects.toThrow();
    await recordHistory(env.temporal.client, handle.agentId, 'control-approvals');
  });

  it('auto-denies an approval in a child that moved to the background', async () => {
    env.script(
      agentNamed('autodeny-root', [
        { toolUses: [spawn('slow writer', 'slow writer task')] },
        { text: 'waiting' },
        { text: 'root got: {{last_user_text}}' },
      ]),
      agentPrompted('slow writer task', [
        { toolUses: [{ name: 'Write', input: { file_path: 'bg.txt', content: 'x' } }], delayMs: 1500 },
        { text: 'writer saw: {{last_tool_result}}' },
      ]),
    );
    const { result } = await runCompleted(env, {
      prompt: 'autodeny test',
      name: 'autodeny-root',
      permissionMode: 'default',
      limits: { autoBackgroundMs: 500 },
    });
    expect(result.finalText).toContain('background agents cannot ask a person');
    expect(existsSync(path.join(env.workspace, 'bg.txt'))).toBe(false);
  });
});

describe('control plane with the official temporal CLI', () => {
  it('steers, messages and stops an agent with `temporal workflow ...`', async () => {
    const cli = findTemporalCli()!;
    const address = env.temporal.address;
    // The first Bash runs until the test has delivered both messages, the second until the cancel: conditions, not sleeps
    // (a loaded machine took longer than a fixed sleep to run the CLI twice).
    const release = path.join(env.workspace, 'cli-root-release');
    env.script(
      agentNamed('cli-root', [
        { toolUses: [bash(`until [ -e ${release} ]; do sleep 0.1; done`)] },
        { toolUses: [bash(`until [ -e ${release}-never ]; do sleep 0.1; done`)] },
        { text: 'unreachable' },
      ]),
    );
    const handle = await env.start({ prompt: 'cli control', name: 'cli-root' });
    await waitFor(async () => (await handle.status()).state === 'running_tools', 60_000, 'the first Bash');
    // Asynchronous on purpose: the worker runs in this process and must answer the update meanwhile.
    const run = (...args: string[]) =>
      promisify(execFile)(cli, [...args, '--address', address, '--workflow-id', handle.agentId], { encoding: 'utf8' });
    const steer = await run(
      'workflow',
      'update',
      'execute',
      '--name',
      'steer',
      '--input',
      JSON.stringify({ text: 'CLI-STEER', by: 'temporal-cli' }),
    );
    expect(steer.stdout).toContain('queued');
    await run(
      'workflow',
      'signal',
      '--name',
      'message',
      '--input',
      JSON.stringify({ from: 'temporal-cli', text: 'CLI-MESSAGE' }),
    );
    writeFileSync(release, '');
    await waitFor(() => okRequestsOf(handle.agentId).length >= 2, 60_000, 'the second model call');
    const second = allText(okRequestsOf(handle.agentId)[1]!);
    expect(second).toContain('CLI-STEER');
    expect(second).toContain('CLI-MESSAGE');
    await run('workflow', 'cancel');
    await expect(handle.result()).rejects.toThrow();
    expect(await closedStatus(handle.agentId)).toBe('CANCELLED');
  });
});
