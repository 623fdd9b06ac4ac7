/** `subagents codec-server`: the Temporal UI's remote codec endpoint, in the foreground until SIGINT/SIGTERM. */
import { parseArgs } from 'node:util';
import { defaultCodecServerPort, defaultUiOrigin, startCodecServer } from '../../codec/codec-server';
import { createPayloadCodecs, describePayloadCodecs } from '../../codec/data-converter';
import { PayloadKeyConfigError } from '../../codec/errors';
import { CliError, ExitCode } from '../exit-codes';

const usage = 'codec-server [--port 8888] [--host 127.0.0.1] [--ui-origin http://127.0.0.1:8233 ...]';

/** Parsed arguments of `subagents codec-server`. */
export interface CodecServerArgs {
  port: number;
  host: string;
  uiOrigins: string[];
}

/** Parses the command line; throws CliError (exit 2) saying what to fix. */
export function parseCodecServerArgs(argv: string[]): CodecServerArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string', default: String(defaultCodecServerPort) },
        host: { type: 'string', default: '127.0.0.1' },
        'ui-origin': { type: 'string', multiple: true },
      },
    }));
  } catch (error) {
    throw new CliError(`${(error as Error).message}\nusage: subagents ${usage}`);
  }
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port > 65535)
    throw new CliError(`--port must be an integer from 0 to 65535, got "${values.port}".`);
  const uiOrigins = values['ui-origin'] ?? [defaultUiOrigin];
  for (const origin of uiOrigins) {
    if (!URL.canParse(origin) || !/^https?:$/.test(new URL(origin).protocol)) {
      throw new CliError(`--ui-origin must be an http(s) origin such as ${defaultUiOrigin}, got "${origin}".`);
    }
  }
  return { port, host: values.host, uiOrigins };
}

const waitForStopSignal = (): Promise<NodeJS.Signals> =>
  new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });

/** Runs the codec server with the keys of the environment until SIGINT/SIGTERM (or `stopped` resolves). */
export async function codecServerCommand(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  stopped: Promise<unknown> = waitForStopSignal(),
): Promise<number> {
  const args = parseCodecServerArgs(argv);
  let payloadCodecs;
  try {
    payloadCodecs = createPayloadCodecs(env);
  } catch (error) {
    if (error instanceof PayloadKeyConfigError) throw new CliError(error.message, ExitCode.usage);
    throw error;
  }
  let server;
  try {
    server = await startCodecServer({
      codecs: payloadCodecs.codecs,
      port: args.port,
      host: args.host,
      uiOrigins: args.uiOrigins,
      log: (line) => console.error(`codec-server: ${line}`),
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new CliError(
        `Port ${args.port} is in use: is a codec server already running? Pick another with --port.`,
        ExitCode.unavailable,
      );
    }
    throw error;
  }
  console.log(`codec server listening on ${server.url} (${describePayloadCodecs(payloadCodecs.settings)})`);
  console.log(`  UI origins allowed: ${args.uiOrigins.join(', ')}`);
  console.log(
    `  Temporal UI: Settings → Codec Server → ${server.url}   (or: subagents dev with a key set passes --ui-codec-endpoint)`,
  );
  console.log(`  CLI: temporal workflow show -w <agentId> --codec-endpoint ${server.url}`);
  if (!payloadCodecs.settings.encryptionKeyId && payloadCodecs.settings.decryptionKeyIds.length === 0) {
    console.log('  No SUBAGENTS_PAYLOAD_KEY set: only compressed payloads are decoded.');
  }
  await stopped;
  await server.close();
  return ExitCode.ok;
}
