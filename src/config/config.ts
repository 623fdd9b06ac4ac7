import Anthropic from '@anthropic-ai/sdk';
import { loadTemporalConnectionConfig, type TemporalConnectionConfig } from './connection-config';
import { withSecretFiles } from './secrets';
import { defaultTaskQueue } from '../shared/protocol/config';
import { parseWorkerId } from '../shared/workspace/workspace-routing';

/** Connection settings read from the environment (documented in docs/configuration.md). */
export interface RuntimeConfig {
  /** Address, namespace, TLS and API key: env vars over the temporal.toml profile (docs/configuration.md). */
  temporal: TemporalConnectionConfig;
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  anthropicApiKey?: string;
  anthropicBaseUrl?: string;
  /** SUBAGENTS_WORKER_ID and SUBAGENTS_WORKSPACE_ROOT (docs/operations.md, workers on several machines). */
  workspace: { workerId?: string; root?: string };
}

export function configFromEnv(env: NodeJS.ProcessEnv = withSecretFiles(process.env)): RuntimeConfig {
  const temporal = loadTemporalConnectionConfig({ env });
  return {
    temporal,
    temporalAddress: temporal.address,
    namespace: temporal.namespace,
    taskQueue: env.SUBAGENTS_TASK_QUEUE || defaultTaskQueue,
    anthropicApiKey: env.ANTHROPIC_API_KEY || undefined,
    anthropicBaseUrl: env.ANTHROPIC_BASE_URL || undefined,
    workspace: {
      ...(env.SUBAGENTS_WORKER_ID ? { workerId: parseWorkerId(env.SUBAGENTS_WORKER_ID, 'SUBAGENTS_WORKER_ID') } : {}),
      ...(env.SUBAGENTS_WORKSPACE_ROOT ? { root: env.SUBAGENTS_WORKSPACE_ROOT } : {}),
    },
  };
}

/** The Anthropic client, never retrying itself: retries are Temporal's job. */
export function createAnthropicClient(config: Pick<RuntimeConfig, 'anthropicApiKey' | 'anthropicBaseUrl'>): Anthropic {
  if (!config.anthropicApiKey && !config.anthropicBaseUrl) {
    throw new Error(
      'No model API configured: set ANTHROPIC_API_KEY for the real API, or ANTHROPIC_BASE_URL to a local model server ' +
        '(start one with `subagents model-server --demo`; `npm run demo` does this for you).',
    );
  }
  return new Anthropic({
    apiKey: config.anthropicApiKey ?? 'local-model-server',
    ...(config.anthropicBaseUrl ? { baseURL: config.anthropicBaseUrl } : {}),
    maxRetries: 0,
  });
}

/** The endpoint requests really go to (ANTHROPIC_BASE_URL wins over the real API even with a key), for logs; never the key. */
export function describeModelEndpoint(config: Pick<RuntimeConfig, 'anthropicApiKey' | 'anthropicBaseUrl'>): string {
  const endpoint = config.anthropicBaseUrl ?? 'https://api.anthropic.com';
  return `${endpoint}${config.anthropicApiKey ? ' (API key set)' : ''}`;
}
