import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MessageParam } from '../../src/shared/model/messages';
import { modelCallsOf, useAgentTestEnv } from '../helpers/agent-env';
import { waitForState } from '../helpers/agent-waits';
import { waitFor } from '../helpers/child-worker';
import { recordHistory } from '../helpers/histories';
import { processesMatching } from '../helpers/processes';
import { agentNamed, bash, threeLevelTree } from '../helpers/scripted-agents';

const env = useAgentTestEnv();

/** tool_use ids without a tool_result after them. */
function unansweredToolUses(messages: MessageParam[]): string[] {
  const answered = new Set(
    messages.flatMap((message) =>
      typeof message.content === 'string'
        ? []
        : message.content.flatMap((block) => (block.type === 'tool_result' ? [block.tool_use_id] : [])),
    ),
  );
  return messages.flatMap((message) =>
    typeof message.content === 'string'
      ? []
      : message.content.flatMap((block) => (block.type === 'tool_use' && !answered.has(block.id) ? [block.id] : [])),
  );
}

describe('interrupt during Bash', () => {
  it('kills the command at once and ends the turn interrupted, with the tool_use answered and no further model call', async () => {
    const startedFile = path.join(env.workspace, 'bash.started');
    env.script(
      agentNamed('int-bash', [
        { toolUses: [bash(`echo started; touch ${startedFile}; sleep 60.5791`)] },
        { text: 'NEVER-REACHED' },
      ]),
    );
    const handle = await env.start({ prompt: 'run a long command', name: 'int-bash' });
    await waitFor(() => existsSync(startedFile), 60_000, 'the command to start');
    // The command runs in its own PID namespace: it is found by its unique sleep length.
    const running = () => processesMatching('^sleep 60.5791').length > 0;
    expect(running()).toBe(true);
    await handle.interrupt({ by: 'tester', reason: 'too slow' });
    const result = await handle.result();
    expect(result.status).toBe('interrupted');
    expect(result.error).toBe('interrupted by tester: too slow');
    expect(running()).toBe(false);
    expect(modelCallsOf(env.modelServer, handle.agentId)).toHaveLength(1);
    const messages = await handle.messages();
    expect(unansweredToolUses(messages)).toEqual([]);
    const last = messages[messages.length - 1]!;
    expect(last.role).toBe('user');
    const blocks = last.content as Exclude<MessageParam['content'], string>;
    expect(blocks[0]).toMatchObject({ type: 'tool_result', is_error: true });
    expect(JSON.stringify(blocks[0])).toContain('started');
    expect(blocks[blocks.length - 1]).toEqual({ type: 'text', text: '[Request interrupted by user]' });
    await recordHistory(env.temporal.client, handle.agentId, 'control-interrupt-bash');
  });
});

describe('stop with open tool calls', () => {
  it('answers every open tool_use of every stopped agent of a 3-level tree with who stopped it', async () => {
    env.script(...threeLevelTree('stop-open', 'open middle task', 'open leaf task'));
    const handle = await env.start({ prompt: 'three levels', name: 'stop-open' });
    const ids = [handle.agentId, `${handle.agentId}.1`, `${handle.agentId}.1.1`];
    await waitForState(env, ids[2]!, 'running_tools', 'the leaf to run Bash');
    await handle.stop({ by: 'tester', reason: 'end of day' });
    await expect(handle.result()).rejects.toThrow();
    for (const id of ids) {
      const messages = await env.client.getAgent(id).messages();
      expect(unansweredToolUses(messages), id).toEqual([]);
      const last = messages[messages.length - 1]!;
      expect(JSON.stringify(last.content), id).toMatch(/Stopped by tester: end of day|stopped by tester: end of day/);
    }
  });
});
