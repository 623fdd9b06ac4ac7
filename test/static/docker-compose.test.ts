// docker-compose.yml cannot run here (no Docker engine): check statically that it matches the code.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { temporalConnectionVariables } from '../../src/config/connection-config';
import { defaultModelServerPort, defaultUiPort } from '../../src/shared/protocol/config';
import { searchAttributeRegistrations } from '../../src/shared/protocol/search-attributes';
import {
  composeConfigDir,
  composeScript,
  temporalServerArgs,
  temporalServerEnvironment,
} from '../../src/cluster/compose-steps';
import { deployDir, pinnedTemporalServerVersion } from '../../src/cluster/paths';

const root = path.join(import.meta.dirname, '..', '..');

interface Service {
  image?: string;
  volumes?: string[];
  build?: string | { context: string };
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: (string | number)[];
  profiles?: string[];
  depends_on?: string[] | Record<string, { condition?: string; required?: boolean }>;
  deploy?: { replicas?: number };
}

const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, Service>;
};
const services = compose.services;

function service(name: string): Service {
  const found = services[name];
  if (!found) throw new Error(`docker-compose.yml has no service "${name}"`);
  return found;
}

function environment(name: string): Record<string, string> {
  const env = service(name).environment ?? {};
  const entries = Array.isArray(env)
    ? env.map((line) => line.split('=', 2) as [string, string])
    : Object.entries(env).map(([key, value]) => [key, String(value ?? '')]);
  return Object.fromEntries(entries);
}

function script(name: string): string {
  const { command } = service(name);
  return Array.isArray(command) ? command.join('\n') : (command ?? '');
}

/** `"HOST:CONTAINER"` port mappings of a service. */
function ports(name: string): string[] {
  return (service(name).ports ?? []).map(String);
}

function dependency(name: string, on: string): { condition?: string; required?: boolean } | undefined {
  const dependsOn = service(name).depends_on;
  if (!dependsOn) return undefined;
  return Array.isArray(dependsOn) ? (dependsOn.includes(on) ? {} : undefined) : dependsOn[on];
}

/** Every environment variable name the runtime reads: `env.NAME` / `env['NAME']` in src/, plus the Temporal connection variables read through envconfig. */
function variablesReadByCode(): Set<string> {
  const names = new Set<string>(temporalConnectionVariables);
  const files = readdirSync(path.join(root, 'src'), { recursive: true, encoding: 'utf8' }).filter((file) =>
    file.endsWith('.ts'),
  );
  for (const file of files) {
    const source = readFileSync(path.join(root, 'src', file), 'utf8');
    for (const match of source.matchAll(/\benv\.([A-Z][A-Z0-9_]*)|\benv\[['"]([A-Z][A-Z0-9_]*)['"]\]/g))
      names.add(match[1] ?? match[2]!);
  }
  return names;
}

describe('docker-compose.yml', () => {
  it('has PostgreSQL, the Temporal server, its UI, the one-shot setup services, workers and the local model server', () => {
    expect(Object.keys(services).sort()).toEqual([
      'model-server',
      'postgresql',
      'temporal',
      'temporal-schema',
      'temporal-setup',
      'temporal-ui',
      'worker',
    ]);
    expect(service('postgresql').image).toMatch(/^postgres:\d+/);
    expect(service('temporal').image).toMatch(/^temporalio\/(server|auto-setup):/);
    expect(service('temporal-ui').image).toMatch(/^temporalio\/ui:/);
    expect(service('temporal-schema').image).toMatch(/^temporalio\/admin-tools:/);
    expect(service('temporal-setup').image).toMatch(/^temporalio\/admin-tools:/);
  });

  it('persists Temporal in PostgreSQL, after its schema exists', () => {
    expect(environment('temporal')).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgresql', DB_PORT: '5432' });
    expect(dependency('temporal', 'temporal-schema')?.condition).toBe('service_completed_successfully');
    // The host comes from the service's environment, so `npm run cluster:up` runs the same script against its own PostgreSQL.
    expect(environment('temporal-schema')).toMatchObject({
      SQL_HOST: 'postgresql',
      SQL_PORT: '5432',
      SQL_USER: 'temporal',
    });
    expect(script('temporal-schema').replaceAll('$$', '$')).toContain(
      '--plugin postgres12 --ep "$SQL_HOST" -p "$SQL_PORT" -u "$SQL_USER"',
    );
    expect(script('temporal-schema')).toContain('update-schema');
  });

  it('exposes the frontend on 7233, the UI where `subagents ui` links, and the model server on its default port', () => {
    expect(ports('temporal')).toEqual(['7233:7233']);
    expect(ports('temporal-ui')).toEqual([`${defaultUiPort}:8080`]);
    expect(ports('model-server')).toEqual([`${defaultModelServerPort}:${defaultModelServerPort}`]);
    expect(environment('temporal-ui').TEMPORAL_ADDRESS).toBe('temporal:7233');
  });

  it('registers exactly the search attributes of src/shared/protocol/search-attributes.ts', () => {
    const registered = Object.fromEntries(
      [
        ...script('temporal-setup').matchAll(
          /temporal operator search-attribute create\b[^\n]*?--name (\w+) --type (\w+)/g,
        ),
      ].map((match) => [match[1], match[2]]),
    );
    expect(registered).toEqual(searchAttributeRegistrations);
    expect(environment('temporal-setup').TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(script('temporal-setup')).toContain('temporal operator namespace create');
  });

  it('runs workers of this project once Temporal is set up, configured only by variables the code reads', () => {
    const worker = service('worker');
    expect(worker.build).toBe('.');
    expect(dependency('worker', 'temporal-setup')?.condition).toBe('service_completed_successfully');
    const env = environment('worker');
    const names = Object.keys(env);
    expect(names).toEqual(
      expect.arrayContaining([
        'TEMPORAL_ADDRESS',
        'TEMPORAL_NAMESPACE',
        'SUBAGENTS_TASK_QUEUE',
        'ANTHROPIC_API_KEY',
        'ANTHROPIC_BASE_URL',
      ]),
    );
    const known = variablesReadByCode();
    expect(names.filter((name) => !known.has(name))).toEqual([]);
    expect(env.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(env.TEMPORAL_NAMESPACE).toBe(environment('temporal-setup').TEMPORAL_NAMESPACE);
    expect(script('worker')).toContain('exec node bin/subagents.js worker');
  });

  it('offers the local model server in the local-model profile, used by workers without an API key', () => {
    const modelServer = service('model-server');
    expect(modelServer.profiles).toEqual(['local-model']);
    expect(modelServer.command).toEqual([
      'node',
      'bin/subagents.js',
      'model-server',
      '--host',
      '0.0.0.0',
      '--port',
      String(defaultModelServerPort),
      '--demo',
    ]);
    expect(dependency('worker', 'model-server')).toMatchObject({ required: false });
    const fallback = script('worker').replaceAll('$$', '$'); // what the shell runs after compose interpolation
    expect(fallback).toMatch(
      /if \[ -z "\$ANTHROPIC_API_KEY" \] && \[ -z "\$ANTHROPIC_BASE_URL" \]; then\s+export ANTHROPIC_BASE_URL=(\S+)/,
    );
    expect(fallback.match(/export ANTHROPIC_BASE_URL=(\S+)/)![1]).toBe(`http://model-server:${defaultModelServerPort}`);
  });

  it('escapes every shell `$` from compose interpolation', () => {
    // After compose turns `$$` into `$`, a lone `$VAR` in a command would have been replaced by compose (usually with nothing).
    for (const name of Object.keys(services)) {
      expect(script(name).replaceAll('$$', ''), name).not.toContain('$');
    }
  });
});

/** The default of `${NAME:-default}` references, as compose substitutes them without the variable set. */
function withDefaults(value: string): string {
  return value.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');
}

const versionsAnchor = (
  parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8')) as {
    'x-temporal-versions': Record<string, string>;
  }
)['x-temporal-versions'];
const template = readFileSync(path.join(root, 'deploy', 'temporal', 'subagents.yaml'), 'utf8');
/** Variables deploy/temporal/subagents.yaml reads, and whether each has a default there. */
const templateVariables = new Map(
  [...template.matchAll(/env "([A-Z_]+)"( \| default)?/g)].map((match) => [match[1]!, match[2] !== undefined]),
);
const localEnvironment = temporalServerEnvironment({
  postgresPort: 5432,
  password: 'secret',
  ports: {
    frontend: 1,
    frontendHttp: 2,
    frontendMembership: 3,
    history: 4,
    historyMembership: 5,
    matching: 6,
    matchingMembership: 7,
    worker: 8,
    workerMembership: 9,
  },
});

describe('docker-compose.yml and `npm run cluster:up` describe one deployment', () => {
  it('runs the server version the cluster builds, and the admin tools of the same release', () => {
    const version = pinnedTemporalServerVersion.replace(/^v/, '');
    expect(withDefaults(versionsAnchor.server!)).toBe(`temporalio/server:${version}`);
    expect(withDefaults(versionsAnchor['admin-tools']!)).toMatch(
      new RegExp(`^temporalio/admin-tools:${version.replaceAll('.', '\\.')}-`),
    );
    expect(service('temporal').image).toBe(versionsAnchor.server);
    expect(service('temporal-schema').image).toBe(versionsAnchor['admin-tools']);
  });

  it("starts the server with the cluster's command on the mounted deploy/temporal configuration", () => {
    expect(service('temporal').volumes).toContain(`./${path.relative(root, deployDir)}:${composeConfigDir}:ro`);
    expect(script('temporal')).toContain(`exec temporal-server ${temporalServerArgs(composeConfigDir).join(' ')}`);
    expect(environment('temporal').DYNAMIC_CONFIG_FILE_PATH).toBe(`${composeConfigDir}/dynamicconfig.yaml`);
    expect(localEnvironment.DYNAMIC_CONFIG_FILE_PATH).toBe(path.join(deployDir, 'dynamicconfig.yaml'));
  });

  it('sets only variables the configuration reads, with the same values except addresses and secrets', () => {
    const compose = Object.fromEntries(
      Object.entries(environment('temporal')).map(([name, value]) => [name, withDefaults(value)]),
    );
    const unread = (names: string[]) => names.filter((name) => !templateVariables.has(name));
    expect(unread(Object.keys(compose))).toEqual([]);
    expect(unread(Object.keys(localEnvironment))).toEqual([]);
    // What has no default in the file is set by both (the broadcast address by the compose command, from the container's address).
    const required = [...templateVariables]
      .filter(([name, hasDefault]) => !hasDefault && name !== 'PROMETHEUS_ENDPOINT')
      .map(([name]) => name);
    expect(required.sort()).toEqual(['POSTGRES_PWD', 'TEMPORAL_BROADCAST_ADDRESS']);
    for (const name of required) expect(localEnvironment[name], name).toBeDefined();
    expect(compose.POSTGRES_PWD).toBeDefined();
    expect(script('temporal').replaceAll('$$', '$')).toContain('export TEMPORAL_BROADCAST_ADDRESS=');
    for (const name of ['DB', 'POSTGRES_USER']) expect(compose[name], name).toBe(localEnvironment[name]);
    expect(compose.DB_PORT).toBe('5432');
  });

  it('gives the cluster the compose scripts themselves for the schema and setup steps', () => {
    expect(composeScript('temporal-schema')).toBe(script('temporal-schema').replaceAll('$$', '$'));
    expect(composeScript('temporal-setup')).toBe(script('temporal-setup').replaceAll('$$', '$'));
    expect(composeScript('temporal-schema')).toContain('update-schema --schema-name "postgresql/v12/$schema"');
  });

  it('confines every worker replica to the mounted workspace', () => {
    expect(environment('worker').SUBAGENTS_WORKSPACE_ROOT).toBe('/workspace');
    expect((service('worker').volumes ?? []).some((volume) => volume.endsWith(':/workspace'))).toBe(true);
  });
});

describe('Dockerfile and .dockerignore', () => {
  const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
  const dockerignore = readFileSync(path.join(root, '.dockerignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim());

  it('builds a Node 20 image with npm ci that runs the worker', () => {
    expect(dockerfile).toMatch(/^FROM node:20\b/m);
    expect(dockerfile).toMatch(/^RUN npm ci\b/m);
    expect(dockerfile).toMatch(/^CMD \["node", "bin\/subagents\.js", "worker"\]$/m);
    const engines = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } })
      .engines.node;
    expect(engines).toMatch(/^>=20\./);
  });

  it('keeps dependencies, local state and secrets out of the build context', () => {
    expect(dockerignore).toEqual(
      expect.arrayContaining(['node_modules/', '.git/', '.temporal/', '.env', 'temporal.toml']),
    );
  });
});
