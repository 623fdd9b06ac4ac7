// docker-compose.yml's setup scripts and server command, run unchanged here: one deployment, two ways to run it.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { binDir, composeFile, deployDir, serverConfigEnvironment } from './paths';
import { run } from './processes';

interface ComposeService {
  command?: string | string[];
  environment?: Record<string, string | number | boolean | null>;
}

/** The shell script of a compose service (`command` after an `sh -c` entrypoint), with compose's `$$` turned back into `$`. */
export function composeScript(service: string, file = composeFile): string {
  const compose = parse(readFileSync(file, 'utf8')) as { services?: Record<string, ComposeService> };
  const command = compose.services?.[service]?.command;
  if (command === undefined) throw new Error(`${file} has no command for the service "${service}".`);
  return (Array.isArray(command) ? command.join('\n') : command).replaceAll('$$', '$');
}

/** Arguments of `temporal-server` for the configuration in `configDir` (deploy/temporal, mounted or local). */
export function temporalServerArgs(configDir: string): string[] {
  return ['--root', '/', '--config', configDir, '--env', serverConfigEnvironment, 'start'];
}

/** Where compose mounts deploy/temporal inside the server container. */
export const composeConfigDir = '/etc/subagents/temporal';

/** The ports the server listens on (all on one host: every service has its own). */
export interface ServerPorts {
  frontend: number;
  frontendHttp: number;
  frontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
}

/** The environment deploy/temporal/subagents.yaml reads, for a server on this machine. */
export function temporalServerEnvironment(options: {
  postgresPort: number;
  password: string;
  ports: ServerPorts;
}): Record<string, string> {
  const { ports } = options;
  return {
    DB: 'postgres12',
    DB_PORT: String(options.postgresPort),
    POSTGRES_SEEDS: '127.0.0.1',
    POSTGRES_USER: 'temporal',
    POSTGRES_PWD: options.password,
    BIND_ON_IP: '127.0.0.1',
    TEMPORAL_BROADCAST_ADDRESS: '127.0.0.1',
    DYNAMIC_CONFIG_FILE_PATH: path.join(deployDir, 'dynamicconfig.yaml'),
    FRONTEND_GRPC_PORT: String(ports.frontend),
    FRONTEND_HTTP_PORT: String(ports.frontendHttp),
    FRONTEND_MEMBERSHIP_PORT: String(ports.frontendMembership),
    HISTORY_GRPC_PORT: String(ports.history),
    HISTORY_MEMBERSHIP_PORT: String(ports.historyMembership),
    MATCHING_GRPC_PORT: String(ports.matching),
    MATCHING_MEMBERSHIP_PORT: String(ports.matchingMembership),
    WORKER_GRPC_PORT: String(ports.worker),
    WORKER_MEMBERSHIP_PORT: String(ports.workerMembership),
  };
}

/** PATH with .temporal/bin first, where temporal-sql-tool and the temporal CLI are. */
function pathWithBin(cliDir: string): string {
  return [binDir, cliDir, process.env.PATH ?? ''].join(path.delimiter);
}

/** Creates or upgrades the two databases' schemas: the compose `temporal-schema` script, run against the local PostgreSQL. */
export function runSchemaSteps(options: { postgresPort: number; password: string; cliDir: string }): string {
  const env = {
    ...process.env,
    PATH: pathWithBin(options.cliDir),
    SQL_HOST: '127.0.0.1',
    SQL_PORT: String(options.postgresPort),
    SQL_USER: 'temporal',
    SQL_PASSWORD: options.password,
  };
  return run('sh', ['-c', composeScript('temporal-schema')], {
    env,
    what: 'the schema steps (docker-compose.yml temporal-schema)',
  }).output;
}

/** Registers the namespace and the search attributes: the compose `temporal-setup` script, run with the pinned Temporal CLI. */
export function runSetupSteps(options: { address: string; namespace: string; cliDir: string }): string {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: pathWithBin(options.cliDir),
    TEMPORAL_ADDRESS: options.address,
    TEMPORAL_NAMESPACE: options.namespace,
  };
  delete env.TEMPORAL_PROFILE;
  delete env.TEMPORAL_CONFIG_FILE;
  // As compose's `restart: on-failure:5`: a namespace just created is not visible to every call at once.
  for (let attempt = 1; ; attempt += 1) {
    const result = run('sh', ['-c', composeScript('temporal-setup')], {
      env,
      what: 'the setup steps (docker-compose.yml temporal-setup)',
      allowFailure: attempt < setupAttempts,
    });
    if (result.status === 0) return result.output;
    spawnSync('sleep', ['3']);
  }
}

const setupAttempts = 6;
