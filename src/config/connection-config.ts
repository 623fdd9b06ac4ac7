import { existsSync } from 'node:fs';
import type { TLSConfig } from '@temporalio/client';
import { loadClientConfigProfile, toClientOptions } from '@temporalio/envconfig';
import { withSecretFiles } from './secrets';
import { defaultNamespace, defaultTemporalAddress } from '../shared/protocol/config';

/** Where Temporal is and how to authenticate, plus the namespace. */
export interface TemporalConnectionConfig {
  address: string;
  namespace: string;
  /** `true` for TLS with system roots (API-key auth turns it on), a TLSConfig for mTLS, `false` to force it off. */
  tls?: TLSConfig | boolean;
  /** Temporal Cloud API key (sent as a bearer token; never written to workflow history). */
  apiKey?: string;
  /** Extra gRPC headers (`grpc_meta` in temporal.toml, `TEMPORAL_GRPC_META_*`). */
  metadata?: Record<string, string>;
}

/** Variables that override the temporal.toml profile (via @temporalio/envconfig). */
export const temporalConnectionVariables = [
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_API_KEY',
  'TEMPORAL_PROFILE',
  'TEMPORAL_CONFIG_FILE',
  'TEMPORAL_TLS',
  'TEMPORAL_TLS_CLIENT_CERT_PATH',
  'TEMPORAL_TLS_CLIENT_CERT_DATA',
  'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'TEMPORAL_TLS_CLIENT_KEY_DATA',
  'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  'TEMPORAL_TLS_SERVER_CA_CERT_DATA',
  'TEMPORAL_TLS_SERVER_NAME',
] as const;

/** Where to read settings from; every field is optional. */
export interface ConnectionConfigOptions {
  /** Environment to read (default process.env). Blank variables count as unset. */
  env?: NodeJS.ProcessEnv;
  /** Profile name; default TEMPORAL_PROFILE, else "default". */
  profile?: string;
  /** TOML file; default TEMPORAL_CONFIG_FILE, else `$XDG_CONFIG_HOME/temporalio/temporal.toml` (~/.config/...). */
  configFile?: string;
  /** Explicit values (CLI flags, `SubagentsClient.connect` arguments): they beat the environment and the profile. */
  overrides?: { address?: string; namespace?: string };
}

/** Resolves the connection: defaults < temporal.toml profile < environment < overrides. */
export function loadTemporalConnectionConfig(options: ConnectionConfigOptions = {}): TemporalConnectionConfig {
  const env = withoutBlanks(options.env ?? withSecretFiles(process.env));
  const configFile = options.configFile ?? env.TEMPORAL_CONFIG_FILE;
  if (configFile !== undefined && !existsSync(configFile)) {
    throw new Error(
      `Temporal config file ${configFile} does not exist (set by ${options.configFile ? 'the caller' : 'TEMPORAL_CONFIG_FILE'}); fix the path or unset it.`,
    );
  }
  const profileName = options.profile ?? env.TEMPORAL_PROFILE;
  const load = (disableFile: boolean) =>
    toClientOptions(
      loadClientConfigProfile({
        profile: profileName,
        configSource: configFile === undefined ? undefined : { path: configFile },
        overrideEnvVars: env,
        disableFile,
      }),
    );
  let connect: ReturnType<typeof toClientOptions>;
  try {
    connect = load(false);
  } catch (error) {
    // @temporalio/envconfig throws a TypeError on a file with no [profile.*] table at all (e.g. an empty file).
    const noProfiles = error instanceof TypeError;
    if (noProfiles && profileName === undefined) {
      connect = load(true);
    } else {
      const where = `profile "${profileName ?? 'default'}" of ${configFile ?? 'the default temporal.toml'}`;
      const hint = noProfiles
        ? `the file has no [profile.${profileName ?? 'default'}] table; add one or unset TEMPORAL_PROFILE`
        : (error as Error).message;
      throw new Error(`Cannot load Temporal connection settings from ${where}: ${hint}`, { cause: error });
    }
  }
  const { address, tls, apiKey, metadata } = connect.connectionOptions;
  return {
    address: options.overrides?.address || address || defaultTemporalAddress,
    namespace: options.overrides?.namespace || connect.namespace || defaultNamespace,
    ...(tls === undefined || tls === null ? {} : { tls }),
    ...(apiKey ? { apiKey } : {}),
    ...(metadata && Object.keys(metadata).length > 0 ? { metadata: metadata as Record<string, string> } : {}),
  };
}

/** The options for `Connection.connect` / `NativeConnection.connect` (everything but the namespace). */
export function connectOptions(config: TemporalConnectionConfig): Omit<TemporalConnectionConfig, 'namespace'> {
  const { namespace: _namespace, ...options } = config;
  return options;
}

/** One line for logs: address, namespace and how it authenticates; never the key itself. */
export function describeConnection(config: TemporalConnectionConfig): string {
  const tls =
    config.tls === undefined || config.tls === false
      ? 'no TLS'
      : config.tls === true
        ? 'TLS'
        : config.tls.clientCertPair
          ? 'mTLS'
          : 'TLS';
  return `${config.address} (namespace ${config.namespace}, ${tls}${config.apiKey ? ', API key' : ''})`;
}

/** Compose files and shells often export `VAR=` for "unset": treat blanks as absent. */
function withoutBlanks(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1].trim() !== '',
    ),
  );
}
