import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, DefaultLogger } from '@temporalio/worker';
import { SubagentsClient } from '../../client';
import { createDataConverter } from '../../codec/data-converter';
import { createAnthropicClient } from '../../config';
import { projectRoot } from '../../dev/temporal-cli';
import { startModelServer } from '../../model-server/server';
import { defaultUiPort } from '../../shared/config';
import { createAgentWorker } from '../../worker';
import { ExitCode } from '../exit-codes';
import { formatResult } from '../format';
import { defaultDevDb, ensureDevServer } from './dev';
import { follow } from '../session';
import { agentUiUrl, uiBaseUrl } from './ui';
import { connectOptions, loadTemporalConnectionConfig, type TemporalConnectionConfig } from '../../connection-config';
import { temporalAnswers } from '../../dev/dev-server';
import { CliError } from '../exit-codes';

const defaultPrompt =
  'Explore this repository and explain what it is: what the main parts are, where the Temporal workflows and the CLI live, and what the README says.';

/**
 * `subagents demo`: the whole system on one machine — the Temporal dev server (started or reused,
 * SQLite), the local model server in demo mode (unless ANTHROPIC_API_KEY is set), a worker, and
 * one root agent exploring this repository. With --exit everything started here is stopped after.
 */
export async function demoCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      exit: { type: 'boolean', default: false },
      prompt: { type: 'string', default: defaultPrompt },
      port: { type: 'string' },
      'ui-port': { type: 'string', default: String(defaultUiPort) },
      cwd: { type: 'string', default: projectRoot },
    },
  });
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const server = await demoServer(values.port, Number(values['ui-port']));

  const useRealApi = Boolean(process.env.ANTHROPIC_API_KEY);
  const modelServer = useRealApi ? undefined : await startModelServer({ port: 0, behaviour: { kind: 'demo' } });
  console.log(useRealApi ? '• Model: the real Anthropic API (ANTHROPIC_API_KEY is set)' : `• Model: local Messages API server (demo behaviour) at ${modelServer!.url}`);

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
    anthropic: createAnthropicClient({ anthropicApiKey: process.env.ANTHROPIC_API_KEY, anthropicBaseUrl: modelServer?.url }),
    workerOptions: { dataConverter },
  });
  const running = worker.run();
  console.log(`• Worker on task queue ${taskQueue}`);

  const client = new SubagentsClient(temporal, taskQueue);
  let exitCode: number = ExitCode.ok;
  try {
    const handle = await client.startAgent({ prompt: values.prompt, cwd: values.cwd, name: 'demo-root', maxTurns: 20 });
    const runUrl = agentUiUrl({ baseUrl: server.uiUrl, namespace: server.connection.namespace, agentId: handle.agentId });
    console.log(`• Agent ${handle.agentId} started — watch it at ${runUrl}\n`);
    const result = await follow(handle, (line) => console.log(line));
    console.log(`\n${formatResult(result)}\n`);
    console.log(`Cache: ${result.usage.cacheReadInputTokens} tokens read from cache, ${result.usage.cacheCreationInputTokens} written.`);
    console.log(`Inspect the run: ${runUrl}`);
    exitCode = result.status === 'completed' ? ExitCode.ok : ExitCode.agentUnsuccessful;
    if (!values.exit) {
      console.log('\nDev server and worker keep running so you can inspect the run. Ctrl-C stops them.');
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
    }
  } finally {
    worker.shutdown();
    await running;
    await nativeConnection.close();
    await connection.close();
    await modelServer?.close();
    if (server.started) await server.stop();
  }
  return exitCode;
}

/** The server the demo runs on: the one TEMPORAL_ADDRESS (or a temporal.toml profile) names, else a local dev server. */
async function demoServer(port: string | undefined, uiPort: number): Promise<{ connection: TemporalConnectionConfig; uiUrl: string; started: boolean; stop(): Promise<void> }> {
  if (port === undefined && process.env.TEMPORAL_ADDRESS?.trim()) {
    const connection = loadTemporalConnectionConfig();
    const plain = connection.tls === undefined || connection.tls === false;
    if (plain && !connection.apiKey && !(await temporalAnswers(connection.address))) {
      throw new CliError(`Temporal does not answer at ${connection.address} (TEMPORAL_ADDRESS). Start it (subagents dev), or unset TEMPORAL_ADDRESS to let the demo start a dev server.`, ExitCode.unavailable);
    }
    console.log(`• Temporal: ${connection.address} (TEMPORAL_ADDRESS), namespace ${connection.namespace}`);
    return { connection, uiUrl: uiBaseUrl(), started: false, stop: async () => {} };
  }
  const portNumber = Number(port ?? '7233');
  if (!Number.isInteger(portNumber) || portNumber <= 0) throw new CliError('--port must be a port number.');
  console.log('• Temporal dev server: starting or reusing (SQLite in .temporal/dev.db) ...');
  const server = await ensureDevServer({ port: portNumber, uiPort, db: defaultDevDb });
  console.log(`  ${server.started ? 'started' : 'reused'} ${server.address}, UI ${server.uiUrl}`);
  return { ...server, connection: { address: server.address, namespace: 'default' } };
}
