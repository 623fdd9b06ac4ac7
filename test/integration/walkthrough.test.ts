// @slow
/**
 * README's "Using it" walkthrough, run as written: the tour's tree (`subagents demo --tour`, started here through
 * the same `startTour` against the test server, worker and model server), then every line of README's block
 * through the real CLI with the placeholders replaced by the tour's ids. Each line must exit 0 and do what its
 * comment says. `watch` runs until the tree ends on its own, as in a second terminal: it starts in the background
 * when its line comes, and must exit 0 (the lead completed) within a bound once the `stop` line has run.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'shell-quote';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tourCommandTemplates, startTour, type TourTree } from '../../src/cli/commands/tour';
import { tourApprovedFile, tourNames, tourScenario, tourTasks } from '../../src/model-server/demo-tour';
import { createAgentTestEnv, modelCallsOf, type AgentTestEnv } from '../helpers/agent-env';
import { waitFor } from '../helpers/child-worker';
import { readmeBlock, withTourIds } from '../helpers/readme';
import { testHomeDir } from '../helpers/temporal';

const repoRoot = path.join(import.meta.dirname, '..', '..');
const cli = path.join(repoRoot, 'bin', 'subagents.js');
const tourLine = 'npm run demo -- --tour';

let env: AgentTestEnv;
let tour: TourTree;

beforeAll(async () => {
  env = await createAgentTestEnv({ kind: 'scripted', scenario: tourScenario() });
  tour = await startTour(env.client, { cwd: env.workspace, homeDir: testHomeDir(), model: 'claude-test-tiny' });
}, 120_000);
afterAll(async () => {
  await env?.close();
});

/** A README line's `subagents` arguments, the tour's ids in place of the placeholders, the comment left off. */
function argumentsOf(line: string): string[] {
  const words = parse(withTourIds(line, tour)).filter((word): word is string => typeof word === 'string');
  expect(words.slice(0, 2), line).toEqual(['npx', 'subagents']);
  return words.slice(2);
}

/** The command lines of README's "Using it" block, comments kept. */
const readmeLines = () => readmeBlock(repoRoot, '## Using it');

const cliEnv = () => ({ ...process.env, TEMPORAL_ADDRESS: env.temporal.address, SUBAGENTS_TASK_QUEUE: env.taskQueue });

/** Runs the real CLI; resolves with its exit code and output (never rejects). */
async function subagents(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [cli, ...args], {
      env: cliEnv(),
      encoding: 'utf8',
      cwd: env.workspace,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** A long-running line (`watch`) in the background, as in a terminal of its own. */
function inBackground(args: string[]) {
  const child = spawn(process.execPath, [cli, ...args], { env: cliEnv(), cwd: env.workspace });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

describe("README's Using it, against the tour", () => {
  it('says the lines the tour prints, starting with the tour itself', () => {
    expect(readmeLines()).toEqual([expect.stringMatching(/^npm run demo -- --tour\s+#/), ...tourCommandTemplates]);
    expect(readmeLines()[0]!.startsWith(tourLine)).toBe(true);
  });

  it('runs every line against the live tree, and each does what it says', { timeout: 300_000 }, async () => {
    let watch: ReturnType<typeof inBackground> | undefined;
    const ran: string[] = [];
    try {
      for (const line of readmeLines().slice(1)) {
        const args = argumentsOf(line);
        const command = args[0]!;
        if (command === 'watch') {
          watch = inBackground(args);
          await waitFor(() => watch!.output().includes(tourNames.worker), 60_000, 'watch to draw the worker');
          ran.push(command);
          continue;
        }
        const run = await subagents(args);
        expect(run.code, `${line}\n${run.stdout}\n${run.stderr}`).toBe(0);
        ran.push(command);
        if (command === 'ls') expect(run.stdout).toContain(tour.workerId);
        if (command === 'steer')
          await waitFor(
            () =>
              modelCallsOf(env.modelServer, tour.workerId).some((call) =>
                call.rawBody.includes('look at src/activities first'),
              ),
            60_000,
            'the worker to be steered',
          );
        if (command === 'approvals') expect(run.stdout).toContain(tour.requestId);
        if (command === 'approve')
          await waitFor(
            () => existsSync(path.join(env.workspace, tourApprovedFile)),
            60_000,
            'the approved Bash call to write its file',
          );
        if (command === 'board') for (const subject of tourTasks) expect(run.stdout).toContain(subject);
        if (command === 'board') expect(run.stdout).toMatch(/IN PROGRESS \(1\)/);
        if (command === 'transcript') expect(run.stdout).toContain('Claiming task #1.');
      }
      expect(ran).toEqual(['watch', 'ls', 'steer', 'approvals', 'approve', 'board', 'transcript', 'stop']);
      expect(readFileSync(path.join(env.workspace, tourApprovedFile), 'utf8')).toBe('approved: this Bash call ran\n');
      // The bound on `watch`: once the worker is stopped the lead finishes, and watch ends by itself with exit 0.
      const code = await Promise.race([
        watch!.exited,
        new Promise<'bound'>((resolve) => setTimeout(() => resolve('bound'), 90_000)),
      ]);
      expect(code, watch!.output()).toBe(0);
      expect(watch!.output()).toContain(tourNames.root);
    } finally {
      if (watch && watch.child.exitCode === null) watch.child.kill('SIGINT');
    }
  });
});
