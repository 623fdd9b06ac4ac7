import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectOptions,
  describeConnection,
  loadTemporalConnectionConfig,
  temporalConnectionVariables,
} from '../../src/config/connection-config';

let directory: string;
let configFile: string;
let certFile: string;
let keyFile: string;

beforeAll(() => {
  directory = mkdtempSync(path.join(os.tmpdir(), 'subagents-envconfig-'));
  certFile = path.join(directory, 'client.pem');
  keyFile = path.join(directory, 'client.key');
  writeFileSync(certFile, 'CERTIFICATE-BYTES');
  writeFileSync(keyFile, 'KEY-BYTES');
  configFile = path.join(directory, 'temporal.toml');
  writeFileSync(
    configFile,
    [
      '[profile.default]',
      'address = "temporal.internal:7233"',
      'namespace = "agents"',
      '',
      '[profile.cloud]',
      'address = "agents.a1b2c.tmprl.cloud:7233"',
      'namespace = "agents.a1b2c"',
      'api_key = "cloud-secret-key"',
      '',
      '[profile.mtls]',
      'address = "agents.a1b2c.tmprl.cloud:7233"',
      'namespace = "agents.a1b2c"',
      '[profile.mtls.tls]',
      `client_cert_path = "${certFile}"`,
      `client_key_path = "${keyFile}"`,
      'server_name = "agents.a1b2c.tmprl.cloud"',
      '',
    ].join('\n'),
  );
});

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** An environment with no Temporal variables and a HOME without a temporal.toml. */
const isolated = (variables: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  HOME: directory,
  XDG_CONFIG_HOME: path.join(directory, 'xdg'),
  ...variables,
});

describe('loadTemporalConnectionConfig', () => {
  it('falls back to the local dev server when nothing is configured', () => {
    expect(loadTemporalConnectionConfig({ env: isolated() })).toEqual({
      address: '127.0.0.1:7233',
      namespace: 'default',
    });
  });

  it('reads TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE without a file', () => {
    const config = loadTemporalConnectionConfig({
      env: isolated({ TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_NAMESPACE: 'prod' }),
    });
    expect(config).toEqual({ address: 'temporal:7233', namespace: 'prod' });
  });

  it('uses the default profile of TEMPORAL_CONFIG_FILE', () => {
    const config = loadTemporalConnectionConfig({ env: isolated({ TEMPORAL_CONFIG_FILE: configFile }) });
    expect(config).toEqual({ address: 'temporal.internal:7233', namespace: 'agents' });
  });

  it('finds temporal.toml in the user config directory', () => {
    const xdg = path.join(directory, 'xdg-with-file');
    mkdirSync(path.join(xdg, 'temporalio'), { recursive: true });
    writeFileSync(path.join(xdg, 'temporalio', 'temporal.toml'), '[profile.default]\naddress = "from-xdg:7233"\n');
    expect(loadTemporalConnectionConfig({ env: isolated({ XDG_CONFIG_HOME: xdg }) }).address).toBe('from-xdg:7233');
  });

  /** The Temporal Cloud connection of the config file's cloud profile, in `namespace` with `apiKey`. */
  const cloud = (namespace: string, apiKey: string) => ({
    address: 'agents.a1b2c.tmprl.cloud:7233',
    namespace,
    apiKey,
    tls: true,
  });

  it('selects a Temporal Cloud profile with TEMPORAL_PROFILE: API key and TLS', () => {
    const config = loadTemporalConnectionConfig({
      env: isolated({ TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'cloud' }),
    });
    expect(config).toEqual(cloud('agents.a1b2c', 'cloud-secret-key'));
  });

  it('loads client certificate and key files for mTLS', () => {
    const config = loadTemporalConnectionConfig({ env: isolated(), configFile, profile: 'mtls' });
    expect(config.tls).toMatchObject({ serverNameOverride: 'agents.a1b2c.tmprl.cloud' });
    const tls = config.tls as { clientCertPair: { crt: Uint8Array; key: Uint8Array } };
    expect(Buffer.from(tls.clientCertPair.crt).toString()).toBe('CERTIFICATE-BYTES');
    expect(Buffer.from(tls.clientCertPair.key).toString()).toBe('KEY-BYTES');
    expect(config.apiKey).toBeUndefined();
    expect(describeConnection(config)).toBe('agents.a1b2c.tmprl.cloud:7233 (namespace agents.a1b2c, mTLS)');
  });

  it('lets environment variables override the profile, and ignores blank ones', () => {
    const config = loadTemporalConnectionConfig({
      env: isolated({
        TEMPORAL_CONFIG_FILE: configFile,
        TEMPORAL_PROFILE: 'cloud',
        TEMPORAL_NAMESPACE: 'staging.a1b2c',
        TEMPORAL_API_KEY: 'env-key',
        TEMPORAL_ADDRESS: '',
      }),
    });
    expect(config).toEqual(cloud('staging.a1b2c', 'env-key'));
  });

  it('turns TLS on from TEMPORAL_TLS and off with TEMPORAL_TLS=false', () => {
    const on = loadTemporalConnectionConfig({ env: isolated({ TEMPORAL_TLS: 'true' }) });
    expect(on.tls).toEqual({}); // a TLSConfig with nothing set: TLS with the system's root certificates
    expect(describeConnection(on)).toBe('127.0.0.1:7233 (namespace default, TLS)');
    expect(loadTemporalConnectionConfig({ env: isolated({ TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' }) }).tls).toBe(
      false,
    );
  });

  it('gives explicit overrides the last word', () => {
    const config = loadTemporalConnectionConfig({
      env: isolated({ TEMPORAL_ADDRESS: 'env:7233' }),
      overrides: { address: 'flag:7233', namespace: 'flag-ns' },
    });
    expect(config).toEqual({ address: 'flag:7233', namespace: 'flag-ns' });
  });

  it('refuses a TEMPORAL_CONFIG_FILE that does not exist, naming it', () => {
    const missing = path.join(directory, 'nope.toml');
    expect(() => loadTemporalConnectionConfig({ env: isolated({ TEMPORAL_CONFIG_FILE: missing }) })).toThrow(
      `Temporal config file ${missing} does not exist`,
    );
  });

  it('treats a temporal.toml without any profile (empty, or comments only) as no file; a profile asked of it is a clear error', () => {
    for (const content of ['', '# nothing here yet\n']) {
      const emptyFile = path.join(directory, 'empty.toml');
      writeFileSync(emptyFile, content);
      expect(
        loadTemporalConnectionConfig({
          env: isolated({ TEMPORAL_CONFIG_FILE: emptyFile, TEMPORAL_ADDRESS: 'from-env:7233' }),
        }),
      ).toEqual({
        address: 'from-env:7233',
        namespace: 'default',
      });
      expect(() =>
        loadTemporalConnectionConfig({ env: isolated({ TEMPORAL_CONFIG_FILE: emptyFile, TEMPORAL_PROFILE: 'cloud' }) }),
      ).toThrow(`profile "cloud" of ${emptyFile}: the file has no [profile.cloud] table`);
    }
  });

  it('refuses an unknown profile, naming the profile and the file', () => {
    expect(() =>
      loadTemporalConnectionConfig({ env: isolated({ TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'nosuch' }) }),
    ).toThrow(`profile "nosuch" of ${configFile}`);
  });
});

describe('temporalConnectionVariables', () => {
  it('lists only variables that change the resolved connection (docs and docker-compose rely on the list)', () => {
    const values: Record<(typeof temporalConnectionVariables)[number], string> = {
      TEMPORAL_ADDRESS: 'elsewhere:7233',
      TEMPORAL_NAMESPACE: 'elsewhere',
      TEMPORAL_API_KEY: 'key',
      TEMPORAL_PROFILE: 'cloud',
      TEMPORAL_CONFIG_FILE: '',
      TEMPORAL_TLS: 'true',
      TEMPORAL_TLS_CLIENT_CERT_PATH: certFile,
      TEMPORAL_TLS_CLIENT_CERT_DATA: 'CERT',
      TEMPORAL_TLS_CLIENT_KEY_PATH: keyFile,
      TEMPORAL_TLS_CLIENT_KEY_DATA: 'KEY',
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: certFile,
      TEMPORAL_TLS_SERVER_CA_CERT_DATA: 'CA',
      TEMPORAL_TLS_SERVER_NAME: 'name.example',
    };
    const base = { TEMPORAL_CONFIG_FILE: configFile };
    const baseline = loadTemporalConnectionConfig({ env: isolated(base) });
    for (const name of temporalConnectionVariables) {
      // TEMPORAL_CONFIG_FILE is measured against having no file at all.
      const [before, after] =
        name === 'TEMPORAL_CONFIG_FILE'
          ? [loadTemporalConnectionConfig({ env: isolated() }), baseline]
          : [baseline, loadTemporalConnectionConfig({ env: isolated({ ...base, [name]: values[name] }) })];
      expect(after, name).not.toEqual(before);
    }
  });
});

describe('connectOptions and describeConnection', () => {
  it('passes everything but the namespace to Connection.connect, and never prints the key', () => {
    const config = loadTemporalConnectionConfig({
      env: isolated({ TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'cloud' }),
    });
    expect(connectOptions(config)).toEqual({
      address: 'agents.a1b2c.tmprl.cloud:7233',
      apiKey: 'cloud-secret-key',
      tls: true,
    });
    const line = describeConnection(config);
    expect(line).toBe('agents.a1b2c.tmprl.cloud:7233 (namespace agents.a1b2c, TLS, API key)');
    expect(line).not.toContain('cloud-secret-key');
  });
});
