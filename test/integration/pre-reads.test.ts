/**
 * Reads that start with the model call (docs/architecture.md, "Reads with the model call") on a real
 * Temporal server with a scripted model over HTTP: the answer's leading Reads come back with it and run
 * no local activity; a Read after another tool, or one a rule or hook speaks about, runs as before; a
 * file a rule refuses is never read into the history.
 */
import { describe, expect, it } from 'vitest';
import type { ModelCallInput, ModelCallResult } from '../../src/shared/model/model-call';
import { modelCallsOf, writeProject, useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { activityResults, historyEvents, payloadText, recordHistory, taskSteps } from '../helpers/histories';
import { agentNamed } from '../helpers/scripted-agents';

const env = useAgentTestEnv();

/** A project directory of its own per test, with its files (`.claude/settings.json`, agents, hook scripts). */
const project = (name: string, files: Record<string, string>): string => writeProject(env.workspace, name, files);

async function stepsOf(agentId: string) {
  const { scheduled, localActivities } = await taskSteps(env.temporal.client, agentId);
  const modelInputs = scheduled.filter((step) => step.name === 'callModel').map((step) => step.input as ModelCallInput);
  const modelResults = (await activityResults(env.temporal.client, agentId, 'callModel')) as ModelCallResult[];
  return {
    localReads: localActivities.filter((name) => name === 'Read' || name === 'readBatch'),
    modelInputs,
    modelResults,
  };
}

/** The tool results the model was given in the agent's `index`-th request (its last message). */
function toolResultsOf(
  agentId: string,
  index: number,
): Array<{ tool_use_id: string; content: string; is_error?: boolean }> {
  const requests = modelCallsOf(env.modelServer, agentId);
  const body = JSON.parse(requests[index]!.rawBody) as { messages: { content: unknown }[] };
  return body.messages.at(-1)!.content as Array<{ tool_use_id: string; content: string; is_error?: boolean }>;
}

describe('Reads with the model call', () => {
  it("the answer's leading Reads come back with it: no local activity, the model sees each file, and the read-file state lets an Edit follow", async () => {
    await env.writeFiles({ 'pre-alpha.txt': 'ALPHA-CONTENT\n', 'pre-beta.txt': 'BETA-CONTENT\n' });
    env.modelServer.clearRequests();
    env.script(
      agentNamed('pre-reads', [
        {
          toolUses: [
            { name: 'Read', input: { file_path: 'pre-alpha.txt' } },
            { name: 'Read', input: { file_path: 'pre-beta.txt' } },
            { name: 'Read', input: { file_path: 'missing.txt' } },
          ],
        },
        // An Edit needs the file read first: the pre-read's record must have reached the agent's read-file state.
        {
          toolUses: [
            {
              name: 'Edit',
              input: { file_path: 'pre-alpha.txt', old_string: 'ALPHA-CONTENT', new_string: 'ALPHA-EDITED' },
            },
          ],
        },
        { text: 'DONE' },
      ]),
    );
    const { handle } = await runCompleted(env, { prompt: 'read and edit', name: 'pre-reads' });

    const steps = await stepsOf(handle.agentId);
    expect(steps.localReads).toEqual([]);
    expect(steps.modelInputs).toHaveLength(3);
    for (const input of steps.modelInputs)
      expect(input.preRead).toEqual({
        context: expect.objectContaining({ agentId: handle.agentId, cwd: env.workspace }),
        tools: ['Read', 'Glob', 'Grep'],
      });
    const first = steps.modelResults[0]!;
    const readIds = first.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
    expect(Object.keys(first.preReads ?? {})).toEqual(readIds);
    expect(first.preReads![readIds[0]!]).toMatchObject({
      result: { isError: false, content: expect.stringContaining('ALPHA-CONTENT') },
    });
    // A missing file is the Read's own error, as the model would have seen it from the local activity.
    expect(first.preReads![readIds[2]!]).toMatchObject({ result: { isError: true } });
    expect(steps.modelResults[1]!.preReads).toBeUndefined();

    const results = toolResultsOf(handle.agentId, 1);
    expect(results.map((result) => result.tool_use_id)).toEqual(readIds);
    expect(results[0]!.content).toContain('ALPHA-CONTENT');
    expect(results[1]!.content).toContain('BETA-CONTENT');
    expect(results[2]!.is_error).toBe(true);
    const edit = toolResultsOf(handle.agentId, 2)[0]!;
    expect(edit.is_error ?? false).toBe(false);
    await recordHistory(env.temporal.client, handle.agentId, 'pre-reads');
  });

  it('a Read after another tool of the same answer runs after it: it sees what the Write before it wrote', async () => {
    await env.writeFiles({ 'pre-gamma.txt': 'OLD-GAMMA\n' });
    env.modelServer.clearRequests();
    env.script(
      agentNamed('pre-order', [
        { toolUses: [{ name: 'Read', input: { file_path: 'pre-gamma.txt' } }] },
        {
          toolUses: [
            { name: 'Read', input: { file_path: 'pre-gamma.txt' } },
            { name: 'Write', input: { file_path: 'pre-gamma.txt', content: 'NEW-GAMMA\n' } },
            { name: 'Read', input: { file_path: 'pre-gamma.txt' } },
          ],
        },
        { text: 'DONE' },
      ]),
    );
    const { handle } = await runCompleted(env, { prompt: 'rewrite gamma', name: 'pre-order' });

    const steps = await stepsOf(handle.agentId);
    const second = steps.modelResults[1]!;
    const [readBefore, , readAfter] = second.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
    // Only the leading Read came with the answer; the one after the Write ran as a local activity, after it.
    expect(Object.keys(second.preReads ?? {})).toEqual([readBefore]);
    expect(steps.localReads).toEqual(['Read']);
    const results = toolResultsOf(handle.agentId, 2);
    expect(results.find((result) => result.tool_use_id === readBefore)!.content).toContain('OLD-GAMMA');
    expect(results.find((result) => result.tool_use_id === readAfter)!.content).toContain('NEW-GAMMA');
  });

  it('leading Glob and Grep calls come back with the answer too: no activity task of their own', async () => {
    await env.writeFiles({
      'pre-src/one.ts': 'export const PRE_NEEDLE = 1;\n',
      'pre-src/two.ts': 'export const OTHER = 2;\n',
    });
    env.modelServer.clearRequests();
    env.script(
      agentNamed('pre-search', [
        {
          toolUses: [
            { name: 'Glob', input: { pattern: 'pre-src/*.ts' } },
            { name: 'Grep', input: { pattern: 'PRE_NEEDLE', output_mode: 'content' } },
            { name: 'Read', input: { file_path: 'pre-src/two.ts' } },
          ],
        },
        { text: 'FOUND' },
      ]),
    );
    const { handle } = await runCompleted(env, { prompt: 'find the needle', name: 'pre-search' });

    const { scheduled } = await taskSteps(env.temporal.client, handle.agentId);
    expect(scheduled.map((step) => step.name).filter((name) => name === 'Glob' || name === 'Grep')).toEqual([]);
    const steps = await stepsOf(handle.agentId);
    expect(steps.localReads).toEqual([]);
    expect(Object.keys(steps.modelResults[0]!.preReads ?? {})).toHaveLength(3);
    const [glob, grep, read] = toolResultsOf(handle.agentId, 1);
    expect(glob!.content).toContain('pre-src/one.ts');
    expect(glob!.content).toContain('pre-src/two.ts');
    expect(grep!.content).toContain('PRE_NEEDLE');
    expect(read!.content).toContain('OTHER');
    await recordHistory(env.temporal.client, handle.agentId, 'pre-reads-search');
  });

  it('when a settings rule speaks about Read, Reads wait for the turn: a refused file is never read into the history', async () => {
    const dir = project('pre-rules', {
      '.claude/settings.json': JSON.stringify({ permissions: { deny: ['Read(./secret.txt)'] } }),
      'secret.txt': 'TOP-SECRET-VALUE\n',
      'open.txt': 'OPEN-CONTENT\n',
      'other.txt': 'OTHER-CONTENT\n',
    });
    env.modelServer.clearRequests();
    env.script(
      agentNamed('pre-rules', [
        {
          toolUses: [
            { name: 'Read', input: { file_path: 'secret.txt' } },
            { name: 'Read', input: { file_path: 'open.txt' } },
            { name: 'Read', input: { file_path: 'other.txt' } },
          ],
        },
        { text: 'DONE' },
      ]),
    );
    const { handle } = await runCompleted(env, { prompt: 'read what you may', name: 'pre-rules', cwd: dir });

    const steps = await stepsOf(handle.agentId);
    for (const input of steps.modelInputs) expect(input.preRead).toBeUndefined();
    expect(steps.modelResults.every((result) => result.preReads === undefined)).toBe(true);
    // The two allowed Reads ran side by side in one local activity, as before.
    expect(steps.localReads).toEqual(['readBatch']);
    const results = toolResultsOf(handle.agentId, 1);
    expect(results[0]!.content).toContain('PermissionRuleDenied');
    expect(results[1]!.content).toContain('OPEN-CONTENT');
    expect(results[2]!.content).toContain('OTHER-CONTENT');
    const held = payloadText(await historyEvents(env.temporal.client, handle.agentId));
    expect(held).toContain('OPEN-CONTENT');
    expect(held).not.toContain('TOP-SECRET-VALUE');
  });

  it('a PreToolUse hook for Read keeps Reads in the turn, after the hook (Glob and Grep, which it does not match, still come with the call)', async () => {
    const dir = project('pre-hook', {
      '.claude/settings.json': JSON.stringify({
        hooks: { PreToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: 'cat > /dev/null; exit 0' }] }] },
      }),
      'hooked.txt': 'HOOKED-CONTENT\n',
    });
    env.modelServer.clearRequests();
    env.script(
      agentNamed('pre-hook', [{ toolUses: [{ name: 'Read', input: { file_path: 'hooked.txt' } }] }, { text: 'DONE' }]),
    );
    const { handle } = await runCompleted(env, { prompt: 'read it', name: 'pre-hook', cwd: dir });
    const steps = await stepsOf(handle.agentId);
    for (const input of steps.modelInputs) expect(input.preRead?.tools).toEqual(['Glob', 'Grep']);
    expect(steps.modelResults.every((result) => result.preReads === undefined)).toBe(true);
    expect(steps.localReads).toEqual(['Read']);
    expect(toolResultsOf(handle.agentId, 1)[0]!.content).toContain('HOOKED-CONTENT');
  });
});
