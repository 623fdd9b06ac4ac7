import { mkdtempSync, realpathSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, DefaultLogger } from '@temporalio/worker';
import { SubagentsClient, type AgentHandle } from '../../client/client';
import { scriptRunAgentType } from '../../shared/scripts/script-run';
import { phaseLines, runHeader } from '../workflows-view';
import { createDataConverter } from '../../codec/data-converter';
import { createAnthropicClient } from '../../config/config';
import { projectRoot } from '../../dev/temporal-cli';
import { tourScenario } from '../../model-server/demo-tour';
import type { Behaviour } from '../../model-server/scenario-schema';
import { startModelServer } from '../../model-server/server';
import { defaultUiPort } from '../../shared/protocol/config';
import { createAgentWorker } from '../../worker/worker';
import { ExitCode } from '../exit-codes';
import { formatResult } from '../format';
import { defaultDevDb, ensureDevServer } from './dev';
import { follow } from '../session';
import { agentUiUrl, uiBaseUrl } from './ui';
import {
  connectOptions,
  loadTemporalConnectionConfig,
  type TemporalConnectionConfig,
} from '../../config/connection-config';
import { temporalAnswers } from '../../dev/dev-server';
import { CliError } from '../exit-codes';
import { startTour, tourCommands } from './tour';

const defaultPrompt =
  'Explore this repository and explain what it is: what the main parts are, where the Temporal workflows and the CLI live, and what the README says.';

/** `subagents demo`: dev server, model server, a worker and one root agent on this machine (docs/cli.md). */
export async function demoCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      exit: { type: 'boolean', default: false },
      tour: { type: 'boolean', default: false },
      prompt: { type: 'string', default: defaultPrompt },
      port: { type: 'string' },
      'ui-port': { type: 'string' },
      'model-port': { type: 'string' },
      cwd: { type: 'string' },
    },
  });
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const ports = {
    port: portOption(values.port, '--port'),
    uiPort: portOption(values['ui-port'], '--ui-port'),
    modelPort: portOption(values['model-port'], '--model-port'),
  };
  if (values.tour && values.exit) throw new CliError('--tour keeps its tree up until Ctrl-C; leave out --exit.');
  // Model server first, so a taken --model-port fails before a dev server starts; the scripted tour is always local.
  const useRealApi = Boolean(process.env.ANTHROPIC_API_KEY) && !values.tour;
  const behaviour: Behaviour = values.tour ? { kind: 'scripted', scenario: tourScenario() } : { kind: 'demo' };
  const modelServer = useRealApi ? undefined : await demoModelServer(ports.modelPort ?? 0, behaviour);
  let server: Awaited<ReturnType<typeof demoServer>>;
  try {
    server = await demoServer(ports.port, ports.uiPort);
  } catch (error) {
    await modelServer?.close();
    throw error;
  }
  console.log(
    useRealApi
      ? '• Model: the real Anthropic API (ANTHROPIC_API_KEY is set)'
      : `• Model: a scripted ${values.tour ? 'tour' : 'demo'} model (the local Messages API server, no real model) at ${modelServer!.url}`,
  );

  const taskQueue = `subagents-demo-${process.pid}`;
  const nativeConnection = await NativeConnection.connect(connectOptions(server.connection));
  const connection = await Connection.connect(connectOptions(server.connection));
  const dataConverter = createDataConverter();
  const temporal = new Client({ connection, namespace: server.connection.namespace, dataConverter });
  const worker = await createAgentWorker({
    connection: nativeConnection,
    client: temporal,
    namespace: server.connection.namespace,
    taskQueue,
    anthropic: createAnthropicClient({
      anthropicApiKey: process.env.ANTHROPIC_API_KEY,
      anthropicBaseUrl: modelServer?.url,
    }),
    workerOptions: { dataConverter },
  });
  const running = worker.run();
  console.log(`• Worker on task queue ${taskQueue}`);

  const client = new SubagentsClient(temporal, taskQueue);
  let exitCode: number = ExitCode.ok;
  try {
    if (values.tour) {
      await runTour(client, values.cwd, server);
      return exitCode;
    }
    const handle = await client.startAgent({
      prompt: values.prompt,
      cwd: values.cwd ?? projectRoot,
      name: 'demo-root',
      maxTurns: 20,
    });
    const runUrl = agentUiUrl({
      baseUrl: server.uiUrl,
      namespace: server.connection.namespace,
      agentId: handle.agentId,
    });
    console.log(`• Agent ${handle.agentId} started — watch it at ${runUrl}\n`);
    const result = await follow(handle, (line) => console.log(line));
    for (const line of await scriptRunLines(client, handle)) console.log(line);
    console.log(`\n${formatResult(result)}\n`);
    console.log(
      `Cache: ${result.usage.cacheReadInputTokens} tokens read from cache, ${result.usage.cacheCreationInputTokens} written.`,
    );
    console.log(`Inspect the run: ${runUrl}`);
    exitCode = result.status === 'completed' ? ExitCode.ok : ExitCode.agentUnsuccessful;
    if (!values.exit) {
      console.log('\nDev server and worker keep running so you can inspect the run. Ctrl-C stops them.');
      await untilInterrupted();
    }
  } finally {
    // The SDK drains the worker on SIGINT by itself; a second shutdown would throw.
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running;
    await nativeConnection.close();
    await connection.close();
    await modelServer?.close();
    if (server.started) await server.stop();
  }
  return exitCode;
}

/** The phases of each script run the lead started with its Workflow tool (docs/workflows.md), after the lead's own lines. */
async function scriptRunLines(client: SubagentsClient, lead: AgentHandle): Promise<string[]> {
  const runs = (await lead.status()).children.filter((child) => child.agentType === scriptRunAgentType);
  const lines: string[] = [];
  for (const run of runs) {
    const snapshot = await client.getWorkflowRun(run.agentId).snapshot();
    lines.push('', ...runHeader(snapshot, Date.now()), ...phaseLines(snapshot, Date.now()));
  }
  return lines;
}

/** Resolves on Ctrl-C (or SIGTERM). */
function untilInterrupted(): Promise<void> {
  return new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
}

/** The tour: its tree in a fresh workspace (or --cwd), the commands to try with its ids, then up until Ctrl-C. */
async function runTour(
  client: SubagentsClient,
  cwd: string | undefined,
  server: { connection: TemporalConnectionConfig; uiUrl: string },
): Promise<void> {
  const workspace = cwd ?? realpathSync(mkdtempSync(path.join(os.tmpdir(), 'subagents-tour-')));
  const tree = await startTour(client, { cwd: workspace });
  const runUrl = agentUiUrl({ baseUrl: server.uiUrl, namespace: server.connection.namespace, agentId: tree.rootId });
  console.log(
    `• Tour: lead ${tree.rootId} in ${workspace}; worker ${tree.workerId} works task #1 for a few minutes; the lead's Bash call waits for approval`,
  );
  console.log(`  ${runUrl}\n\nIn another terminal, try:\n`);
  if (server.connection.address !== '127.0.0.1:7233' || server.connection.namespace !== 'default') {
    console.log(
      `export TEMPORAL_ADDRESS=${server.connection.address} TEMPORAL_NAMESPACE=${server.connection.namespace}`,
    );
  }
  for (const line of tourCommands(tree)) console.log(line);
  console.log('\nThe dev server and worker keep running until Ctrl-C.');
  await untilInterrupted();
}

/** A port flag's value: a whole number from 1 to 65535 (0 only for the model server: any free port). */
function portOption(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535 || (port === 0 && flag !== '--model-port'))
    throw new CliError(`${flag} must be a port number from 1 to 65535 (got ${JSON.stringify(value.slice(0, 40))}).`);
  return port;
}

/** The demo's local model server, on `port` (0: any free port); a port in use is one line that says what to do. */
async function demoModelServer(port: number, behaviour: Behaviour) {
  try {
    return await startModelServer({ port, behaviour });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    throw new CliError(
      `127.0.0.1:${port} is already in use, so the demo's model server could not start there. Pick another with --model-port N (or leave it out: any free port).`,
      ExitCode.unavailable,
    );
  }
}

/** Whether nothing listens on 127.0.0.1:port now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createNetServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** A port nothing listens on (the OS picks it). */
function anyFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const port = (probe.address() as AddressInfo).port;
      probe.close(() => resolve(port));
    });
  });
}

/** The dev server's ports: given, else defaults, else free ones when a default is held by something else. */
async function devServerPorts(
  port: number | undefined,
  uiPort: number | undefined,
): Promise<{ port: number; uiPort: number }> {
  const chosen = { port: port ?? 7233, uiPort: uiPort ?? defaultUiPort };
  if (await temporalAnswers(`127.0.0.1:${chosen.port}`)) return chosen;
  if (port === undefined && !(await portFree(chosen.port))) {
    chosen.port = await anyFreePort();
    console.log(
      `• 127.0.0.1:7233 is taken by something that is not a Temporal dev server: using ${chosen.port} instead (--port N to choose).`,
    );
  }
  if (uiPort === undefined && !(await portFree(chosen.uiPort))) {
    chosen.uiPort = await anyFreePort();
    console.log(
      `• 127.0.0.1:${defaultUiPort} (the UI) is taken: using ${chosen.uiPort} instead (--ui-port N to choose).`,
    );
  }
  return chosen;
}

/** The server the demo runs on: the one TEMPORAL_ADDRESS (or a temporal.toml profile) names, else a local dev server. */
async function demoServer(
  port: number | undefined,
  uiPort: number | undefined,
): Promise<{ connection: TemporalConnectionConfig; uiUrl: string; started: boolean; stop(): Promise<void> }> {
  if (port === undefined && process.env.TEMPORAL_ADDRESS?.trim()) {
    const connection = loadTemporalConnectionConfig();
    const plain = connection.tls === undefined || connection.tls === false;
    if (plain && !connection.apiKey && !(await temporalAnswers(connection.address))) {
      throw new CliError(
        `Temporal does not answer at ${connection.address} (TEMPORAL_ADDRESS). Start it (subagents dev), or unset TEMPORAL_ADDRESS to let the demo start a dev server.`,
        ExitCode.unavailable,
      );
    }
    console.log(`• Temporal: ${connection.address} (TEMPORAL_ADDRESS), namespace ${connection.namespace}`);
    return { connection, uiUrl: uiBaseUrl(), started: false, stop: async () => {} };
  }
  const ports = await devServerPorts(port, uiPort);
  console.log('• Temporal dev server: starting or reusing (SQLite in .temporal/dev.db) ...');
  const server = await ensureDevServer({ port: ports.port, uiPort: ports.uiPort, db: defaultDevDb });
  console.log(`  ${server.started ? 'started' : 'reused'} ${server.address}, UI ${server.uiUrl}`);
  return { ...server, connection: { address: server.address, namespace: 'default' } };
}
