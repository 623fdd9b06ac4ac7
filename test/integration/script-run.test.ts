import { describe, expect, it } from 'vitest';
import { useAgentTestEnv, modelCallsOf, requestBodies } from '../helpers/agent-env';
import { waitFor } from '../helpers/child-worker';
import { agentNamed, agentPrompted } from '../helpers/scripted-agents';
import type { RunWorkflowOptions } from '../../src/client/script-run-input';
import { scriptHeader, scriptRunOptions } from '../helpers/script-runs';
import { recordHistory } from '../helpers/histories';

// Script runs on the real server (docs/workflows.md): each primitive, isolation inside the workflow, stop and resume.
const env = useAgentTestEnv();
const header = (name: string) => scriptHeader(name);
const options = (more: RunWorkflowOptions = {}) => scriptRunOptions(env, more);

/** Model requests whose latest user text contains this (each agent's first request carries its prompt). */
const requestsFor = (text: string) =>
  requestBodies(env.modelServer).filter((body) => JSON.stringify(body.messages[0]?.content ?? '').includes(text));

describe('script runs: the primitives', () => {
  it('runs agent, parallel, pipeline, phase, log, args and budget, and returns the value', async () => {
    env.script(
      agentPrompted('READ alpha', [{ text: 'found-alpha' }]),
      agentPrompted('READ beta', [{ text: 'found-beta' }]),
      agentPrompted('CHECK 0 found-alpha', [{ text: 'ok-alpha' }]),
      agentPrompted('CHECK 1 found-beta', [{ text: 'ok-beta' }]),
    );
    const script =
      `export const meta = { name: 'prims', description: 'every primitive', phases: [{ title: 'Read' }, { title: 'Check' }] };\n` +
      `phase('Read');\n` +
      `log('reading ' + args.items.length);\n` +
      `const read = await parallel(args.items.map((item) => () => agent('READ ' + item, { label: 'read ' + item })));\n` +
      `phase('Check');\n` +
      `const checked = await pipeline(read, (text, item, index) => agent('CHECK ' + index + ' ' + text), (text, item) => text.toUpperCase() + '/' + item);\n` +
      `return { read, checked, total: budget.total, spent: budget.spent() > 0, remaining: budget.remaining() };`;
    const run = await env.client.runWorkflow(script, { items: ['alpha', 'beta'] }, options());
    const result = await run.result();
    expect(result.status).toBe('completed');
    expect(result.structured).toEqual({
      read: ['found-alpha', 'found-beta'],
      checked: ['OK-ALPHA/found-alpha', 'OK-BETA/found-beta'],
      total: null,
      spent: true,
      remaining: null,
    });
    expect(JSON.parse(result.finalText)).toEqual(result.structured);
    const snapshot = await run.snapshot();
    expect(snapshot.status).toBe('completed');
    expect(snapshot.phases.map((phase) => [phase.title, phase.counts.completed])).toEqual([
      ['Read', 2],
      ['Check', 2],
    ]);
    expect(snapshot.agents.map((agent) => [agent.index, agent.label, agent.agentId])).toEqual([
      [1, 'read alpha', `${run.runId}.1`],
      [2, 'read beta', `${run.runId}.2`],
      [3, 'CHECK 0 found-alpha', `${run.runId}.3`],
      [4, 'CHECK 1 found-beta', `${run.runId}.4`],
    ]);
    expect(snapshot.logs.map((line) => line.text)).toEqual(['reading 2']);
    expect(snapshot.usage.outputTokens).toBeGreaterThan(0);
    await recordHistory(env.temporal.client, run.runId, 'script-run-primitives');
    // The run is the parent of its agents in the tree.
    const tree = await env.client.getAgent(run.runId).tree();
    expect(tree.nodes.filter((agent) => agent.parentAgentId === run.runId)).toHaveLength(4);
  });

  it('keeps parallel and pipeline going past a throwing thunk or stage (null in its place)', async () => {
    env.script(
      agentPrompted('P-ONE', [{ text: 'one' }]),
      agentPrompted('P-TWO', [{ text: 'two' }]),
      agentPrompted('S1 x', [{ text: 'sx' }]),
      agentPrompted('S2 sx', [{ text: 'done-x' }]),
    );
    const script =
      header('throws') +
      `const p = await parallel([() => agent('P-ONE'), () => { throw new Error('boom'); }, async () => { await agent('P-TWO'); throw new Error('late'); }]);\n` +
      `const q = await pipeline(['x', 'y'], async (item) => { if (item === 'y') throw new Error('no'); return agent('S1 ' + item); }, (previous) => agent('S2 ' + previous));\n` +
      `let thrown = 'none'; try { await agent(''); } catch (error) { thrown = error.message; }\n` +
      `let badOption = 'none'; try { await agent('X', { colour: 'red' }); } catch (error) { badOption = error.message; }\n` +
      `return { p, q, thrown, badOption };`;
    const run = await env.client.runWorkflow(script, undefined, options());
    const value = (await run.result()).structured as Record<string, unknown>;
    expect(value.p).toEqual(['one', null, null]);
    expect(value.q).toEqual(['done-x', null]);
    expect(value.thrown).toMatch(/non-empty prompt/);
    expect(value.badOption).toContain('colour');
    expect(requestsFor('S2 ')).toHaveLength(1);
    await recordHistory(env.temporal.client, run.runId, 'script-run-throwing-thunks');
  });

  it('fails the run with the script error, and reports a syntax error before any agent runs', async () => {
    const thrown = await env.client.runWorkflow(
      header('thrower') + `throw new Error('planned failure');`,
      undefined,
      options(),
    );
    const failed = await thrown.result();
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain('planned failure');
    expect((await thrown.snapshot()).status).toBe('failed');
    await expect(
      env.client.runWorkflow(header('broken') + 'const x: number = 1;', undefined, options()),
    ).rejects.toThrow(/InvalidScript/);
  });
});

describe('script runs: isolation inside the workflow', () => {
  it('reaches nothing but the script API: no clock, randomness, modules, process, network or Temporal', async () => {
    const script =
      header('probes') +
      `const probes = {};\n` +
      `const attempts = {\n` +
      `  dateNow: () => Date.now(), random: () => Math.random(), newDate: () => new Date(), dateCall: () => Date(),\n` +
      `  require: () => globalThis['req' + 'uire']('fs'), process: () => globalThis['pro' + 'cess'].env,\n` +
      `  fetch: () => globalThis['fe' + 'tch']('http://127.0.0.1/'), temporal: () => globalThis.__TEMPORAL__.api,\n` +
      `  activator: () => globalThis.__TEMPORAL_ACTIVATOR__.info, wasm: () => WebAssembly.Module,\n` +
      `  functionThis: () => Function('return this')().workflowInfo(), setTimeout: () => setTimeout(() => {}, 1),\n` +
      `};\n` +
      `for (const [name, attempt] of Object.entries(attempts)) { try { attempt(); probes[name] = 'reached'; } catch (error) { probes[name] = 'refused'; } }\n` +
      `try { await eval("imp" + "ort('fs')"); probes.dynamicImport = 'reached'; } catch (error) { probes.dynamicImport = 'refused'; }\n` +
      `probes.fixedDate = new Date(0).toISOString();\n` +
      `probes.globals = Object.getOwnPropertyNames(globalThis).filter((name) => /^[a-z]/.test(name)).sort();\n` +
      `return probes;`;
    const run = await env.client.runWorkflow(script, undefined, options());
    const probes = (await run.result()).structured as Record<string, unknown>;
    for (const name of [
      'dateNow',
      'random',
      'newDate',
      'dateCall',
      'require',
      'process',
      'fetch',
      'temporal',
      'activator',
      'wasm',
      'functionThis',
      'setTimeout',
      'dynamicImport',
    ])
      expect(probes[name], name).toBe('refused');
    expect(probes.fixedDate).toBe('1970-01-01T00:00:00.000Z');
    await recordHistory(env.temporal.client, run.runId, 'script-run-isolation-probes');
    expect(probes.globals).toEqual(
      expect.arrayContaining(['agent', 'args', 'budget', 'log', 'parallel', 'phase', 'pipeline', 'workflow']),
    );
    for (const name of ['process', 'require', 'fetch', 'setTimeout', 'workflowInfo', 'WebAssembly'])
      expect(probes.globals).not.toContain(name);
  });

  it('stops a runaway script with a limit instead of stalling the worker', async () => {
    const run = await env.client.runWorkflow(header('spin') + 'while (true) {}', undefined, options());
    const result = await run.result();
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/computed for/);
    const hang = await env.client.runWorkflow(header('hang') + 'await new Promise(() => {});', undefined, options());
    const hung = await hang.result();
    expect(hung.status).toBe('failed');
    expect(hung.error).toContain('nothing will settle');
  });
});

describe('script runs: stop and resume', () => {
  it('resolves a stopped agent to null and lets the script go on; a stopped run stops its agents', async () => {
    env.script(
      agentPrompted('SLOW-ONE', [{ text: 'slow', delayMs: 60_000 }]),
      agentPrompted('AFTER', [{ text: 'after-done' }]),
      agentPrompted('SLOW-TWO', [{ text: 'slow', delayMs: 60_000 }]),
    );
    const run = await env.client.runWorkflow(
      header('stops') +
        `const first = await agent('SLOW-ONE');\nconst second = await agent('AFTER ' + first);\nreturn { first, second };`,
      undefined,
      options(),
    );
    await waitFor(async () => (await run.snapshot()).agents[0]?.status === 'running', 30_000, 'first agent running');
    await env.client.getAgent(`${run.runId}.1`).stop({ reason: 'test stops one agent' });
    const result = await run.result();
    expect(result.structured).toEqual({ first: null, second: 'after-done' });
    expect((await run.snapshot()).agents[0]?.status).toBe('cancelled');
    await recordHistory(env.temporal.client, run.runId, 'script-run-stopped-agent');

    const whole = await env.client.runWorkflow(
      header('stop-run') + `return await agent('SLOW-TWO');`,
      undefined,
      options(),
    );
    await waitFor(async () => (await whole.snapshot()).agents[0]?.status === 'running', 30_000, 'agent running');
    await whole.stop({ reason: 'test stops the run' });
    await expect(whole.result()).rejects.toThrow(/cancel/i);
    expect((await whole.status()).result?.status).toBe('cancelled');
    await expect(env.client.getAgent(`${whole.runId}.1`).result()).rejects.toThrow(/cancel/i);
    expect((await env.client.getAgent(`${whole.runId}.1`).status()).result?.status).toBe('cancelled');
    expect((await whole.snapshot()).status).toBe('cancelled');
  });

  it('reuses exactly the unchanged prefix of a previous run', async () => {
    env.script(
      agentPrompted('R-ONE', [{ text: 'one' }]),
      agentPrompted('R-TWO', [{ text: 'two' }]),
      agentPrompted('R-THREE', [{ text: 'three' }]),
      agentPrompted('R-FOUR', [{ text: 'four' }]),
    );
    const first = await env.client.runWorkflow(
      header('resume') +
        `return [await agent('R-ONE'), await agent('R-TWO', { label: 'two' }), await agent('R-THREE')];`,
      undefined,
      options(),
    );
    expect((await first.result()).structured).toEqual(['one', 'two', 'three']);
    const before = requestBodies(env.modelServer).length;
    // The label changed (display only), the third prompt changed, a fourth call came.
    const second = await env.client.runWorkflow(
      header('resume') +
        `return [await agent('R-ONE'), await agent('R-TWO', { label: 'second' }), await agent('R-FOUR'), await agent('R-THREE')];`,
      undefined,
      options({ resumeFromRunId: first.runId }),
    );
    expect((await second.result()).structured).toEqual(['one', 'two', 'four', 'three']);
    const snapshot = await second.snapshot();
    expect(snapshot.resumedFrom).toBe(first.runId);
    await recordHistory(env.temporal.client, second.runId, 'script-run-resumed');
    expect(snapshot.agents.map((agent) => agent.status)).toEqual(['reused', 'reused', 'completed', 'completed']);
    // Only the two live calls reached the model: R-THREE ran again, since it came after the first change.
    const after = requestBodies(env.modelServer).slice(before);
    expect(after.filter((body) => JSON.stringify(body.messages).includes('R-ONE'))).toHaveLength(0);
    expect(after.filter((body) => JSON.stringify(body.messages).includes('R-THREE'))).toHaveLength(1);
  });
});

describe('the Workflow tool', () => {
  it('starts a run from an agent in the background and delivers its result as a task notification', async () => {
    const script = header('from-agent') + `return 'run says ' + (await agent('TOOL-CHILD ' + args.word));`;
    env.script(
      agentNamed('orchestrator', [
        { toolUses: [{ name: 'Workflow', input: { script, args: { word: 'hello' } } }] },
        { text: 'LAUNCHED' },
        { text: 'GOT-IT' },
      ]),
      agentPrompted('TOOL-CHILD hello', [{ text: 'child-answer' }]),
    );
    const root = await env.start({ prompt: 'ORCHESTRATE', name: 'orchestrator' });
    const result = await root.result();
    expect(result.finalText).toBe('GOT-IT');
    await recordHistory(env.temporal.client, `${root.agentId}.1`, 'script-run-from-tool');
    await recordHistory(env.temporal.client, root.agentId, 'script-run-tool-caller');
    const calls = modelCallsOf(env.modelServer, root.agentId).map((request) => request.rawBody);
    expect(calls[1]).toContain(`Workflow run ${root.agentId}.1 launched in the background`);
    expect(calls[2]).toContain('run says child-answer');
    const tree = await root.tree();
    const run = tree.nodes.find((agent) => agent.agentId === `${root.agentId}.1`);
    expect(run?.agentType).toBe('workflow');
    expect(tree.nodes.find((agent) => agent.agentId === `${root.agentId}.1.1`)?.parentAgentId).toBe(
      `${root.agentId}.1`,
    );
    // The run's agents get no Workflow tool: one orchestrator per run.
    const childTools = requestBodies(env.modelServer)
      .filter((body) => JSON.stringify(body.messages).includes('TOOL-CHILD hello'))
      .flatMap((body) => (body.tools ?? []).map((tool) => tool.name));
    expect(childTools).not.toContain('Workflow');
  });

  it('refuses a script with a syntax error before anything starts', async () => {
    env.script(
      agentNamed('bad-orchestrator', [
        { toolUses: [{ name: 'Workflow', input: { script: header('bad') + 'return (;' } }] },
        { text: 'SAW-ERROR' },
      ]),
    );
    const root = await env.start({ prompt: 'ORCHESTRATE BADLY', name: 'bad-orchestrator' });
    expect((await root.result()).finalText).toBe('SAW-ERROR');
    const second = modelCallsOf(env.modelServer, root.agentId)[1]!.rawBody;
    expect(second).toContain('InvalidScript');
    expect(second).toContain('Nothing was started');
    expect((await root.tree()).nodes.filter((agent) => agent.parentAgentId === root.agentId)).toHaveLength(0);
  });
});
