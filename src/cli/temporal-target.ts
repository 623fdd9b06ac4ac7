import { loadTemporalConnectionConfig } from '../config/connection-config';

/** "address (namespace ns)" of the Temporal the CLI talks to, for error messages; never fails. */
export function describeTemporalTarget(env: NodeJS.ProcessEnv = process.env): string {
  try {
    const config = loadTemporalConnectionConfig({ env });
    return `${config.address} (namespace ${config.namespace})`;
  } catch {
    return env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
  }
}
