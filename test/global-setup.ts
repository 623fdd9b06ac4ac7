import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { TestProject } from 'vitest/node';
import { startDevServer, type DevServer } from '../src/dev/dev-server';
import { workflowBundlerOptions, workflowsPath } from '../src/worker/worker';
import { endWithThisProcess } from './helpers/end-with-this-process';
import { installAdvice, sandboxOptionsFromEnv, sandboxProblem } from '../src/config/sandbox-options';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    workflowBundlePath: string;
  }
}

let server: DevServer | undefined;
let directory: string | undefined;

/** One real Temporal dev server and one workflow bundle for the whole run. */
export async function setup(project: TestProject): Promise<void> {
  const sandboxMissing = await sandboxProblem(sandboxOptionsFromEnv(process.env));
  if (sandboxMissing) {
    // Agents' Bash would be refused everywhere: run them unconfined, and say which tests cannot run.
    process.env.SUBAGENTS_SANDBOX = 'off';
    console.warn(
      `\n!! ${sandboxMissing}: the OS sandbox tests (test/activities/sandbox, the shell-syntax oracle) are SKIPPED and every other test runs Bash UNCONFINED (SUBAGENTS_SANDBOX=off). ${installAdvice}.\n`,
    );
  }
  directory = mkdtempSync(path.join(os.tmpdir(), 'subagents-test-'));
  server = await startDevServer({
    port: 0,
    headless: true,
    dbFilename: path.join(directory, 'temporal.db'),
    logFile: path.join(directory, 'temporal.log'),
  });
  // Ctrl-C ends vitest without teardown(): the server must not outlive the run.
  if (server.process) endWithThisProcess(server.process);
  const runDirectory = directory;
  process.once('exit', () => rmSync(runDirectory, { recursive: true, force: true }));
  const bundle = await bundleWorkflowCode({ workflowsPath, ...workflowBundlerOptions, logger: undefined });
  const bundlePath = path.join(directory, 'workflow-bundle.js');
  writeFileSync(bundlePath, bundle.code);
  project.provide('temporalAddress', server.address);
  project.provide('workflowBundlePath', bundlePath);
}

export async function teardown(): Promise<void> {
  await server?.stop();
  if (directory) rmSync(directory, { recursive: true, force: true });
}
