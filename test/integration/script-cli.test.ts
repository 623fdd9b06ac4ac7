// @slow
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentResult } from '../../src/shared/agents/agent';
import type { ScriptRunListing } from '../../src/client/script-runs';
import type { ScriptRunSnapshot } from '../../src/shared/scripts/script-run';
import type { ScriptRunEvent } from '../../src/cli/watch/script-run-events';
import { useAgentTestEnv } from '../helpers/agent-env';
import { runCli } from '../helpers/cli-process';
import { cli, useCliEnvironment } from '../helpers/in-process-cli';
import { agentPrompted } from '../helpers/scripted-agents';

// `subagents run`, `workflows`, `watch`, `steer` and `stop` on script runs, against the real server and the scripted model.
const env = useAgentTestEnv();
useCliEnvironment(env);

const readScript =
  "export const meta = { name: 'reads', description: 'Reads each item', phases: [{ title: 'Read' }] };\n" +
  "phase('Read');\n" +
  "log('reading ' + args.items.length + ' items');\n" +
  "const read = await parallel(args.items.map((item) => () => agent('CLIREAD ' + item, { label: 'read ' + item })));\n" +
  'return { read };\n';

async function writeScript(name: string, source: string): Promise<string> {
  await env.writeFiles({ [name]: source });
  return path.join(env.workspace, name);
}

const runFlags = ['--model', 'claude-test-tiny', '--cwd'];

describe('subagents run and workflows', () => {
  it('run --follow shows phases and agents, prints the result; workflows lists and details the run', async () => {
    env.script(
      agentPrompted('CLIREAD alpha', [{ text: 'found-alpha' }]),
      agentPrompted('CLIREAD beta', [{ text: 'found-beta' }]),
    );
    const file = await writeScript('reads.js', readScript);
    const run = await cli(
      'run',
      file,
      '--args',
      '{"items":["alpha","beta"]}',
      '--follow',
      '--plain',
      '--id',
      'wf-cli-follow',
      ...runFlags,
      env.workspace,
    );
    expect(run.err).toContain('started wf-cli-follow');
    expect(run.code).toBe(0);
    // The live lines: the phase, both agents finished in it, the log, the run's end.
    expect(run.err).toMatch(/ phase Read/);
    expect(run.err).toMatch(/ finished #1 \[completed\] general-purpose "read alpha" \(Read\)/);
    expect(run.err).toMatch(/ finished #2 \[completed\] general-purpose "read beta" \(Read\)/);
    expect(run.err).toMatch(/ log reading 2 items/);
    expect(run.err).toMatch(/ run completed · /);
    expect(run.out).toContain('status: completed');
    expect(run.out).toContain(JSON.stringify({ read: ['found-alpha', 'found-beta'] }, null, 2));

    const list = await cli('workflows');
    expect(list.code).toBe(0);
    expect(list.out).toMatch(/^wf-cli-follow {2}reads {2}completed {2}2\/2 agents {2}\S+ tok {2}\S+ {2}Read: 2\/2$/m);
    const listed = JSON.parse((await cli('workflows', '--json')).out) as ScriptRunListing[];
    expect(listed.find((listing) => listing.runId === 'wf-cli-follow')).toMatchObject({
      executionStatus: 'COMPLETED',
      snapshot: { status: 'completed', name: 'reads' },
    });

    const detail = await cli('workflows', 'wf-cli-follow');
    expect(detail.code).toBe(0);
    expect(detail.out).toContain('wf-cli-follow  reads — Reads each item');
    expect(detail.out).toContain('  Read: 2/2');
    expect(detail.out).toMatch(/ {2}#1 \[completed\] general-purpose "read alpha" \(Read\) · \S+ tok · \d+s/);
    expect(detail.out).toContain('reading 2 items');
    expect(detail.out).toContain(`result:\n${JSON.stringify({ read: ['found-alpha', 'found-beta'] }, null, 2)}`);
    const snapshot = JSON.parse((await cli('workflows', 'wf-cli-follow', '--json')).out) as ScriptRunSnapshot;
    expect(snapshot.agents.map((agent) => agent.agentId)).toEqual(['wf-cli-follow.1', 'wf-cli-follow.2']);

    // A second run resumes from the first: the unchanged calls are answered from its journal.
    const resumed = await cli(
      'run',
      file,
      '--args',
      '{"items":["alpha","beta"]}',
      '--resume-from',
      'wf-cli-follow',
      '--follow',
      '--json',
      ...runFlags,
      env.workspace,
    );
    expect(resumed.code).toBe(0);
    const resumedResult = JSON.parse(resumed.out) as AgentResult;
    expect(JSON.parse(resumedResult.finalText)).toEqual({ read: ['found-alpha', 'found-beta'] });
    const reused = JSON.parse((await cli('workflows', resumedResult.agentId, '--json')).out) as ScriptRunSnapshot;
    expect(reused.resumedFrom).toBe('wf-cli-follow');
    expect(reused.agents.map((agent) => [agent.status, agent.reusedFrom])).toEqual([
      ['reused', 'wf-cli-follow'],
      ['reused', 'wf-cli-follow'],
    ]);
  });

  it('run prints the id; watch shows the run; steer and stop reach it; workflows shows it stopped', async () => {
    env.script(agentPrompted('CLIREAD slow', [{ text: 'slow-done', delayMs: 60_000 }]));
    const file = await writeScript('slow.js', readScript);
    const started = await cli('run', file, '--args', '{"items":["slow"]}', ...runFlags, env.workspace);
    expect(started.code).toBe(0);
    const runId = started.out.trim();
    expect(runId).toMatch(/^wf-[0-9a-f]{8}$/);
    // In its own process: the in-process CLI's console capture is one per test process.
    const watching = runCli(env, ['watch', runId, '--json', '--interval', '200']);
    // Wait until the run's agent is running, then steer and stop the run.
    for (let attempt = 0; ; attempt++) {
      const snapshot = JSON.parse((await cli('workflows', runId, '--json')).out || '{}') as Partial<ScriptRunSnapshot>;
      if (snapshot.agents?.some((agent) => agent.status === 'running')) break;
      if (attempt > 100) throw new Error(`the run's agent never ran: ${JSON.stringify(snapshot)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const steered = await cli('steer', runId, 'focus on the tests');
    expect(steered.code, steered.err).toBe(0);
    const stopped = await cli('stop', runId, '--reason', 'enough');
    expect(stopped.code, stopped.err).toBe(0);
    expect(stopped.out).toContain(`stop requested for ${runId}`);
    const watched = await watching;
    expect(watched.code, watched.stderr).toBe(1);
    const result = watched.stdout.trim().split('\n').filter(Boolean);
    const events = result.map((line) => JSON.parse(line) as ScriptRunEvent);
    expect(events).toContainEqual({ event: 'phase', title: 'Read' });
    expect(events.some((event) => event.event === 'agent_started' && event.agent.label === 'read slow')).toBe(true);
    expect(events.at(-1)).toMatchObject({ event: 'run_finished' });
    expect(events.at(-1)).not.toMatchObject({ status: 'completed' });
    const detail = await cli('workflows', runId);
    expect(detail.out).not.toMatch(/status: (running|completed)/);
  });

  it('refuses an unknown run to resume from, and an id that is no script run', async () => {
    const file = await writeScript('refused.js', readScript);
    const refused = await cli('run', file, '--resume-from', 'wf-nothing-here', ...runFlags, env.workspace);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('ScriptResumeRefused: no script run "wf-nothing-here"');
    const missing = await cli('workflows', 'wf-nothing-here');
    expect(missing.code).toBe(4);
    expect(missing.err).toContain('No script run "wf-nothing-here"');
  });
});
