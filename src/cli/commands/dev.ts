import path from 'node:path';
import { parseArgs } from 'node:util';
import { DevServerPortInUse, registerSearchAttributes, startDevServer, temporalAnswers } from '../../dev/dev-server';
import { ensureTemporalCli, projectRoot } from '../../dev/temporal-cli';
import { defaultUiPort } from '../../shared/protocol/config';
import { uiCodecEndpointFromEnv } from '../../codec/codec-server';
import { CliError, ExitCode } from '../exit-codes';

/** Default SQLite file of `subagents dev` and the demo. */
export const defaultDevDb = path.join(projectRoot, '.temporal', 'dev.db');

/** Result of ensureDevServer: whether we started it (and so own it) or reused one. */
export interface EnsuredDevServer {
  address: string;
  uiUrl: string;
  started: boolean;
  stop(): Promise<void>;
}

/** Reuses a dev server already answering at the port, or starts one with SQLite persistence and the UI. */
export async function ensureDevServer(options: {
  port: number;
  uiPort: number;
  db: string;
  detached?: boolean;
  extraArgs?: string[];
}): Promise<EnsuredDevServer> {
  const address = `127.0.0.1:${options.port}`;
  const uiUrl = `http://127.0.0.1:${options.uiPort}`;
  if (await temporalAnswers(address)) {
    await registerSearchAttributes(address);
    return { address, uiUrl, started: false, stop: async () => {} };
  }
  let server: Awaited<ReturnType<typeof startDevServer>>;
  try {
    server = await startDevServer({
      port: options.port,
      uiPort: options.uiPort,
      dbFilename: options.db,
      detached: options.detached,
      extraArgs: options.extraArgs,
    });
  } catch (error) {
    if (!(error instanceof DevServerPortInUse)) throw error;
    throw new CliError(
      `${error.address} is already in use by something that is not a Temporal dev server, so none could start. Pick free ports with --port N (Temporal, now ${options.port}) and --ui-port N (the UI, now ${options.uiPort}), or stop what holds it (\`ss -ltnp\` shows who; the server's log: ${error.logFile}).`,
      ExitCode.unavailable,
    );
  }
  return { address, uiUrl, started: true, stop: () => server.stop() };
}

/** `subagents dev`: starts (or reuses) the Temporal dev server and keeps it running until Ctrl-C. */
export async function devCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', default: '7233' },
      'ui-port': { type: 'string', default: String(defaultUiPort) },
      db: { type: 'string', default: defaultDevDb },
      'ui-codec-endpoint': { type: 'string' },
    },
    strict: true,
  });
  const port = Number(values.port);
  const uiPort = Number(values['ui-port']);
  if (!Number.isInteger(port) || !Number.isInteger(uiPort))
    throw new CliError('--port and --ui-port must be integers.');
  // With a payload key configured, the UI decodes through `subagents codec-server`.
  const codecEndpoint = values['ui-codec-endpoint'] ?? uiCodecEndpointFromEnv();
  const extraArgs = codecEndpoint ? ['--ui-codec-endpoint', codecEndpoint] : [];
  const server = await ensureDevServer({ port, uiPort, db: path.resolve(values.db), extraArgs });
  if (!server.started) {
    console.log(
      `Temporal dev server already running at ${server.address} (UI ${server.uiUrl}); search attributes registered.`,
    );
    return 0;
  }
  console.log(`Temporal dev server at ${server.address}, UI ${server.uiUrl}, data in ${values.db}. Ctrl-C stops it.`);
  if (codecEndpoint)
    console.log(`The UI decodes payloads through ${codecEndpoint}: run \`subagents codec-server\` with the same key.`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.stop();
  return 0;
}

/** `subagents ensure-cli`: finds the Temporal CLI or builds the pinned version (the test command runs this first). */
export async function ensureCliCommand(): Promise<number> {
  console.log(ensureTemporalCli());
  return 0;
}
