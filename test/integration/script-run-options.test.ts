import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { simpleGit } from 'simple-git';
import { describe, expect, it } from 'vitest';
import { useAgentTestEnv, modelCallsOf } from '../helpers/agent-env';
import { agentNamed, agentOfType, agentPrompted } from '../helpers/scripted-agents';
import type { RunWorkflowOptions } from '../../src/client/script-run-input';
import { scriptHeader, scriptRunOptions } from '../helpers/script-runs';

// agent() options and nested scripts on the real server (docs/workflows.md): agentType, model, schema, isolation, workflow().
const env = useAgentTestEnv();
const header = (name: string, description = 'an options test') => scriptHeader(name, description);
const options = (more: RunWorkflowOptions = {}) => scriptRunOptions(env, more);

const requestOf = (agentId: string, index = 0) =>
  JSON.parse(modelCallsOf(env.modelServer, agentId)[index]!.rawBody) as {
    model: string;
    tools?: { name: string }[];
  };
const structured = (input: Record<string, unknown>) => ({ toolUses: [{ name: 'StructuredOutput', input }] });

describe('agent() options', () => {
  it('starts the agent type and model asked for, and answers a schema call with the validated object', async () => {
    env.script(
      agentPrompted('TYPED', [{ text: 'explored' }]),
      agentPrompted('MODELLED', [{ text: 'modelled' }]),
      agentPrompted('SCHEMA-OK', [
        structured({ verdict: 'wrong-type', score: 'x' }),
        structured({ verdict: 'confirmed', score: 3 }),
      ]),
    );
    const schema = {
      type: 'object',
      properties: { verdict: { enum: ['confirmed', 'refuted'] }, score: { type: 'integer' } },
      required: ['verdict', 'score'],
      additionalProperties: false,
    };
    const run = await env.client.runWorkflow(
      header('opts') +
        `const typed = await agent('TYPED', { agentType: 'Explore' });\n` +
        `const modelled = await agent('MODELLED', { model: 'claude-test-small' });\n` +
        `const checked = await agent('SCHEMA-OK', { schema: args.schema });\n` +
        `return { typed, modelled, checked, kind: typeof checked };`,
      { schema },
      options(),
    );
    expect((await run.result()).structured).toEqual({
      typed: 'explored',
      modelled: 'modelled',
      checked: { verdict: 'confirmed', score: 3 },
      kind: 'object',
    });
    const snapshot = await run.snapshot();
    expect(snapshot.agents.map((agent) => agent.agentType)).toEqual(['Explore', 'general-purpose', 'general-purpose']);
    expect(requestOf(`${run.runId}.2`).model).toBe('claude-test-small');
    // The schema agent got the tool, and its first (invalid) call cost it an attempt before the valid one.
    expect(requestOf(`${run.runId}.3`).tools?.map((tool) => tool.name)).toContain('StructuredOutput');
    expect(modelCallsOf(env.modelServer, `${run.runId}.3`)[1]!.rawBody).toContain('is_error');
  });

  it('throws from agent() when the agent never submits a valid object, and refuses a contradictory schema at once', async () => {
    const invalid = structured({ verdict: 'maybe' });
    env.script(agentPrompted('SCHEMA-BAD', [invalid, invalid, invalid, invalid, invalid, invalid]));
    const run = await env.client.runWorkflow(
      header('schema-fail') +
        `let thrown = null; try { await agent('SCHEMA-BAD', { schema: { type: 'object', properties: { verdict: { enum: ['yes'] } }, required: ['verdict'] } }); } catch (error) { thrown = error.message; }\n` +
        `let contradiction = null; try { await agent('NEVER', { schema: { type: 'object', required: ['x'], additionalProperties: false } }); } catch (error) { contradiction = error.message; }\n` +
        `return { thrown, contradiction };`,
      undefined,
      options(),
    );
    const value = (await run.result()).structured as { thrown: string; contradiction: string };
    expect(value.thrown).toContain('StructuredOutputMissing');
    expect(value.contradiction).toContain('InvalidOutputSchema');
    // The contradictory schema started nothing: one agent in all.
    expect((await run.snapshot()).agents.filter((agent) => agent.agentId)).toHaveLength(1);
    expect(modelCallsOf(env.modelServer, `${run.runId}.1`)).toHaveLength(5);
  });

  it('runs an agent in its own git worktree with isolation: "worktree"', async () => {
    const repository = path.join(env.workspace, 'repo');
    mkdirSync(repository, { recursive: true });
    const git = simpleGit(repository);
    await git.init();
    await git.addConfig('user.name', 'Test');
    await git.addConfig('user.email', 'test@example.com');
    writeFileSync(path.join(repository, 'file.txt'), 'content\n');
    await git.add('.');
    await git.commit('initial');
    env.script(agentPrompted('ISOLATED', [{ text: 'isolated-done' }]));
    const run = await env.client.runWorkflow(
      header('isolated') + `return await agent('ISOLATED', { isolation: 'worktree' });`,
      undefined,
      options({ cwd: repository }),
    );
    expect((await run.result()).structured).toBe('isolated-done');
    const child = await env.client.getAgent(`${run.runId}.1`).result();
    expect(child.worktree?.branch).toBe(`subagents/${run.runId}.1`);
    expect(child.worktree?.kept).toBe(false);
  });
});

describe('saved scripts and workflow()', () => {
  it('lists saved scripts for the model, runs one by name, and nests one level only', async () => {
    const saved = path.join(env.workspace, '.claude', 'workflows');
    mkdirSync(saved, { recursive: true });
    writeFileSync(
      path.join(saved, 'inner.js'),
      header('inner', 'doubles a word with one agent') +
        `const answer = await agent('INNER ' + args.word);\n` +
        `let nested = null; try { await workflow('inner', {}); } catch (error) { nested = error.message; }\n` +
        `return { answer, nested };`,
    );
    writeFileSync(
      path.join(saved, 'outer.js'),
      header('outer', 'calls inner') + `phase('Outer');\nreturn await workflow('inner', { word: args.word });`,
    );
    env.script(
      agentNamed('saved-caller', [
        { toolUses: [{ name: 'Workflow', input: { name: 'outer', args: { word: 'hi' } } }] },
        { text: 'LAUNCHED' },
        { text: 'SAVED-DONE' },
      ]),
      agentPrompted('INNER hi', [{ text: 'inner-answer' }]),
    );
    const root = await env.start({ prompt: 'RUN THE SAVED ONE', name: 'saved-caller' });
    expect((await root.result()).finalText).toBe('SAVED-DONE');
    const first = modelCallsOf(env.modelServer, root.agentId)[0]!.rawBody;
    expect(first).toContain('Saved workflow scripts');
    expect(first).toContain('- inner: doubles a word with one agent');
    expect(first).toContain('- outer: calls inner');
    const runId = `${root.agentId}.1`;
    const snapshot = await env.client.getWorkflowRun(runId).snapshot();
    expect(snapshot.name).toBe('outer');
    expect(snapshot.result).toEqual({
      answer: 'inner-answer',
      nested: expect.stringContaining('nests one level only'),
    });
    // The nested script's agent is the run's own: same counter, same tree.
    expect(snapshot.agents.map((agent) => [agent.agentId, agent.phase])).toEqual([[`${runId}.1`, 'Outer']]);
    expect(snapshot.logs.map((line) => line.text).join('\n')).toContain('workflow inner started');
  });

  it('refuses a saved name that does not exist, listing what there is', async () => {
    env.script(
      agentOfType('general-purpose', [
        { toolUses: [{ name: 'Workflow', input: { name: 'no-such-script' } }] },
        { text: 'NOT-FOUND-SEEN' },
      ]),
    );
    const root = await env.start({ prompt: 'RUN A MISSING ONE' });
    expect((await root.result()).finalText).toBe('NOT-FOUND-SEEN');
    const second = modelCallsOf(env.modelServer, root.agentId)[1]!.rawBody;
    expect(second).toContain('ScriptNotFound');
    expect(second).toContain('Nothing was started');
  });

  it('refuses hostile Workflow inputs before anything starts: a path outside, a non-run to resume, huge args', async () => {
    const script = header('tiny') + `return 1;`;
    env.script(
      agentOfType('general-purpose', [
        {
          toolUses: [
            { name: 'Workflow', input: { scriptPath: '../../../../etc/passwd' } },
            { name: 'Workflow', input: { script, resumeFromRunId: 'an-ordinary-agent-or-nothing' } },
            { name: 'Workflow', input: { script, args: { blob: 'x'.repeat(70_000) } } },
            { name: 'Workflow', input: { script, maxConcurrentAgents: 1000 } },
          ],
        },
        { text: 'ALL-REFUSED' },
      ]),
    );
    const root = await env.start({ prompt: 'HOSTILE WORKFLOW INPUTS' });
    expect((await root.result()).finalText).toBe('ALL-REFUSED');
    const results = (
      JSON.parse(modelCallsOf(env.modelServer, root.agentId)[1]!.rawBody) as {
        messages: { content: { type: string; content?: unknown; is_error?: boolean }[] }[];
      }
    ).messages
      .at(-1)!
      .content.filter((block) => block.type === 'tool_result');
    expect(results.map((block) => block.is_error)).toEqual([true, true, true, true]);
    const texts = results.map((block) => JSON.stringify(block.content));
    expect(texts[0]).toMatch(/InvalidScript|outside/);
    expect(texts[1]).toContain('ScriptResumeRefused');
    expect(texts[2]).toContain('bytes of JSON');
    expect(texts[3]).toContain('maxConcurrentAgents');
    expect((await root.tree()).nodes.filter((node) => node.parentAgentId === root.agentId)).toHaveLength(0);
  });
});
