/** `subagents model-server`: the local Messages API server in the foreground until SIGINT/SIGTERM. */
import { parseArgs } from 'node:util';
import { defaultModelServerPort } from '../../shared/protocol/config';
import { loadScenarioFile } from '../../model-server/scenario-file';
import { ScenarioValidationError } from '../../model-server/scenario-schema';
import { startModelServer, type Behaviour, type ModelServerOptions } from '../../model-server/server';
import { ExitCode } from '../exit-codes';

const usage =
  'usage: subagents model-server [--port N] [--host H] [--script FILE | --demo | --echo] [--api-key KEY] [--strict-roles]';

/** Bad arguments: the message says what to fix. */
export class ModelServerArgsError extends Error {
  override readonly name = 'ModelServerArgsError';
}

export interface ModelServerArgs {
  port: number;
  host: string;
  /** Exactly one of these, `demo` by default. */
  behaviour: { kind: 'script'; file: string } | { kind: 'demo' } | { kind: 'echo' };
  apiKey?: string;
  strictRoles: boolean;
}

/** Parses the command line; throws ModelServerArgsError. */
export function parseModelServerArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): ModelServerArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        script: { type: 'string' },
        demo: { type: 'boolean' },
        echo: { type: 'boolean' },
        'api-key': { type: 'string' },
        'strict-roles': { type: 'boolean' },
      },
    }));
  } catch (error) {
    throw new ModelServerArgsError((error as Error).message);
  }
  const portText = values.port ?? env.SUBAGENTS_MODEL_SERVER_PORT ?? String(defaultModelServerPort);
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535)
    throw new ModelServerArgsError(`--port must be an integer from 0 to 65535, got "${portText}"`);
  const chosen = [values.script !== undefined, values.demo === true, values.echo === true].filter(Boolean).length;
  if (chosen > 1) throw new ModelServerArgsError('give at most one of --script FILE, --demo, --echo');
  const behaviour: ModelServerArgs['behaviour'] =
    values.script !== undefined
      ? { kind: 'script', file: values.script }
      : values.echo
        ? { kind: 'echo' }
        : { kind: 'demo' };
  const args: ModelServerArgs = {
    port,
    host: values.host ?? '127.0.0.1',
    behaviour,
    strictRoles: values['strict-roles'] === true,
  };
  if (values['api-key'] !== undefined) args.apiKey = values['api-key'];
  return args;
}

async function behaviourOf(args: ModelServerArgs): Promise<Behaviour> {
  switch (args.behaviour.kind) {
    case 'script':
      return { kind: 'scripted', scenario: await loadScenarioFile(args.behaviour.file) };
    case 'demo':
    case 'echo':
      return { kind: args.behaviour.kind };
  }
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

/** One line for a port that cannot be had, with what changes it; undefined for any other failure. */
function listenProblem(error: unknown, args: ModelServerArgs): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = `${args.host}:${args.port}`;
  if (code === 'EADDRINUSE')
    return `${where} is already in use (another model server?). Pick another port with --port N or SUBAGENTS_MODEL_SERVER_PORT (--port 0 takes a free one), or stop what holds it (\`ss -ltnp 'sport = :${args.port}'\` shows who).`;
  if (code === 'EACCES')
    return `${where}: permission denied to listen there (ports below 1024 need privileges). Pick another port with --port N.`;
  if (code === 'EADDRNOTAVAIL')
    return `${where}: no interface of this machine has the address ${args.host}. Use --host 127.0.0.1 (the default) or an address this machine has.`;
  return undefined;
}

export async function modelServerCommand(argv: string[]): Promise<number> {
  let args: ModelServerArgs;
  let behaviour: Behaviour;
  try {
    args = parseModelServerArgs(argv);
    behaviour = await behaviourOf(args);
  } catch (error) {
    if (!(error instanceof ModelServerArgsError) && !(error instanceof ScenarioValidationError)) throw error;
    console.error(`subagents model-server: ${error.message}\n${usage}`);
    return 2;
  }
  const options: ModelServerOptions = { port: args.port, host: args.host, behaviour, strictRoles: args.strictRoles };
  if (args.apiKey !== undefined) options.apiKey = args.apiKey;
  let server: Awaited<ReturnType<typeof startModelServer>>;
  try {
    server = await startModelServer(options);
  } catch (error) {
    const problem = listenProblem(error, args);
    if (!problem) throw error;
    console.error(`subagents model-server: ${problem}`);
    return ExitCode.unavailable;
  }
  const stopped = waitForStopSignal();
  const described = args.behaviour.kind === 'script' ? `scripted from ${args.behaviour.file}` : args.behaviour.kind;
  console.log(`model server (${described}) listening on ${server.url}`);
  console.log(`  export ANTHROPIC_BASE_URL=${server.url}`);
  // Without --api-key any non-empty key works, so the runtime's placeholder key is enough.
  if (args.apiKey !== undefined) console.log(`  export ANTHROPIC_API_KEY=${args.apiKey}`);
  const signal = await stopped;
  console.log(`model server: ${signal}, closing`);
  await server.close();
  return 0;
}
