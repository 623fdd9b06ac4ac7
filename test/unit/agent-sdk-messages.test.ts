import { describe, expect, it } from 'vitest';
import { approvalAnswer } from '../../src/client/can-use-tool';
import { notificationStatus, taskNotification, taskProgress, taskStarted } from '../../src/client/progress-messages';
import type { AgentResult } from '../../src/shared/agents/agent';
import type { TreeNode } from '../../src/shared/protocol/tree';

const usage = { inputTokens: 10, outputTokens: 5, cacheCreationInputTokens: 2, cacheReadInputTokens: 3 };

describe('approvalAnswer (canUseTool result → approval)', () => {
  const input = { command: 'ls' };

  it('approves an allow, with the same input or none', () => {
    expect(approvalAnswer('Bash', input, { behavior: 'allow' })).toEqual({
      approve: true,
      always: false,
      interrupt: false,
    });
    expect(approvalAnswer('Bash', input, { behavior: 'allow', updatedInput: { command: 'ls' } }).approve).toBe(true);
  });

  it('answers "always" only for an addRules allow of the whole tool', () => {
    const always = (rules: Array<{ toolName: string; ruleContent?: string }>) =>
      approvalAnswer('Bash', input, {
        behavior: 'allow',
        updatedPermissions: [{ type: 'addRules', behavior: 'allow', rules, destination: 'session' }],
      }).always;
    expect(always([{ toolName: 'Bash' }])).toBe(true);
    expect(always([{ toolName: 'Bash', ruleContent: 'ls:*' }])).toBe(false);
    expect(always([{ toolName: 'Read' }])).toBe(false);
  });

  it('approves a changed input to run in place of the call, and sends none when it is the same', () => {
    const answer = approvalAnswer('Bash', input, { behavior: 'allow', updatedInput: { command: 'ls -la' } });
    expect(answer).toEqual({ approve: true, always: false, interrupt: false, updatedInput: { command: 'ls -la' } });
    expect(approvalAnswer('Bash', input, { behavior: 'allow', updatedInput: { ...input } })).not.toHaveProperty(
      'updatedInput',
    );
  });

  it('denies with the message, interrupts when asked, and refuses an unknown behaviour', () => {
    expect(approvalAnswer('Bash', input, { behavior: 'deny', message: 'no', interrupt: true })).toEqual({
      approve: false,
      always: false,
      reason: 'no',
      interrupt: true,
    });
    expect(approvalAnswer('Bash', input, { behavior: 'deny', message: '' }).reason).toBe('denied by canUseTool');
    const odd = approvalAnswer('Bash', input, { behavior: 'ask' } as never);
    expect(odd).toMatchObject({ approve: false, reason: 'canUseTool returned behavior "ask"' });
  });
});

describe('SDK task messages', () => {
  const node: TreeNode = {
    agentId: 'agent-1.2',
    parentAgentId: 'agent-1',
    agentType: 'レビュー担当',
    description: 'review',
    depth: 1,
    background: true,
    status: 'running',
    startedAtMs: 1_000,
  };

  it('task_started names the task, its tool_use id, type, depth and background', () => {
    expect(taskStarted(node, 'agent-1', 'toolu_1')).toMatchObject({
      type: 'system',
      subtype: 'task_started',
      task_id: 'agent-1.2',
      tool_use_id: 'toolu_1',
      session_id: 'agent-1',
      description: 'review',
      task_type: 'local_agent',
      subagent_type: 'レビュー担当',
      is_backgrounded: true,
      spawn_depth: 1,
      uuid: expect.any(String),
    });
    expect(taskStarted({ ...node, description: undefined }, 'agent-1')).not.toHaveProperty('tool_use_id');
  });

  it('task_progress totals every token and times from the start', () => {
    const message = taskProgress(node, { usage, toolUses: 4, lastTool: 'Grep', startedAtMs: 1_000 }, 'agent-1', 3_500);
    expect(message).toMatchObject({
      subtype: 'task_progress',
      usage: { total_tokens: 20, tool_uses: 4, duration_ms: 2_500 },
      last_tool_name: 'Grep',
    });
  });

  it('task_notification maps every end state onto completed, failed or stopped', () => {
    expect(notificationStatus('completed')).toBe('completed');
    expect(notificationStatus('cancelled')).toBe('stopped');
    expect(notificationStatus('interrupted')).toBe('stopped');
    for (const status of ['failed', 'max_turns', 'truncated', 'refused'] as const)
      expect(notificationStatus(status)).toBe('failed');
    const result = {
      status: 'failed',
      finalText: 'partial',
      error: 'model unavailable',
      usage,
      toolUses: 2,
      durationMs: 900,
    } as AgentResult;
    expect(taskNotification(node, result, 'agent-1')).toMatchObject({
      subtype: 'task_notification',
      status: 'failed',
      summary: 'model unavailable',
      output_file: '',
      usage: { total_tokens: 20, tool_uses: 2, duration_ms: 900 },
    });
    // A subagent whose result cannot be read (terminated): stopped, without usage.
    expect(taskNotification(node, undefined, 'agent-1')).toMatchObject({ status: 'stopped', summary: '' });
    expect(taskNotification(node, undefined, 'agent-1')).not.toHaveProperty('usage');
  });
});
