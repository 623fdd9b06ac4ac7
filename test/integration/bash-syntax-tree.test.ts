// An Explore agent's Bash is decided on a real bash parse (issue 43, item 1): shell-quote took `a#b` for a
// comment, so `echo a#b && touch pwned` ran without approval and wrote the file.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { requestBodies, useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { agentPrompted, bash } from '../helpers/scripted-agents';

const env = useAgentTestEnv();

type Block = { type: string; content?: unknown; is_error?: boolean };

/** The text and error flag of the tool result in request `index`. */
function toolResultOf(index: number): { text: string; isError: boolean } {
  const body = requestBodies(env.modelServer)[index]!;
  const block = (body.messages[body.messages.length - 1]!.content as Block[]).find(
    (candidate) => candidate.type === 'tool_result',
  )!;
  return {
    text: typeof block.content === 'string' ? block.content : JSON.stringify(block.content),
    isError: block.is_error === true,
  };
}

describe('read-only Bash on a real bash parse', () => {
  it('refuses `echo a#b && touch pwned` for an Explore agent and writes nothing; runs a read-only line with a # in a word', async () => {
    env.modelServer.clearRequests();
    env.script(
      agentPrompted('hash trick', [
        { toolUses: [bash('echo a#b && touch pwned')] },
        { toolUses: [bash('echo q#w | tee copied')] },
        { toolUses: [bash('echo a#b && ls')] },
        { text: 'done' },
      ]),
    );
    await runCompleted(env, {
      prompt: 'the hash trick',
      type: 'Explore',
      model: 'claude-test-tiny',
    });

    const touch = toolResultOf(1);
    expect(touch.isError).toBe(true);
    expect(touch.text).toContain('CommandNotReadOnly');
    expect(touch.text).toContain('`touch` is not a read-only command');
    expect(existsSync(path.join(env.workspace, 'pwned'))).toBe(false);

    const tee = toolResultOf(2);
    expect(tee.isError).toBe(true);
    expect(tee.text).toContain('`tee` is not a read-only command');
    expect(existsSync(path.join(env.workspace, 'copied'))).toBe(false);

    // bash prints `a#b`: the # inside a word is no comment, and the line is read-only.
    const reader = toolResultOf(3);
    expect(reader.isError).toBe(false);
    expect(reader.text).toContain('a#b');
  });
});
