// Worker logs (Temporal's Runtime logger) and optional OpenTelemetry tracing (docs/configuration.md).
import { createRequire } from 'node:module';
import { inspect } from 'node:util';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { LogLevel, Logger } from '@temporalio/common';
import { DefaultLogger, Runtime, type LogEntry, type WorkerInterceptors, type WorkerOptions } from '@temporalio/worker';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';

const logLevels: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

/** How the worker logs: SUBAGENTS_LOG_FORMAT (text | json) and SUBAGENTS_LOG_LEVEL. */
export interface LoggingOptions {
  format: 'text' | 'json';
  level: LogLevel;
}

/** Reads SUBAGENTS_LOG_FORMAT (default text) and SUBAGENTS_LOG_LEVEL (default INFO); throws on values it does not know. */
export function loggingFromEnv(env: NodeJS.ProcessEnv = process.env): LoggingOptions {
  const format = env.SUBAGENTS_LOG_FORMAT?.trim().toLowerCase() || 'text';
  if (format !== 'text' && format !== 'json') {
    throw new Error(`SUBAGENTS_LOG_FORMAT must be "text" or "json", got "${env.SUBAGENTS_LOG_FORMAT}".`);
  }
  const level = (env.SUBAGENTS_LOG_LEVEL?.trim().toUpperCase() || 'INFO') as LogLevel;
  if (!logLevels.includes(level)) {
    throw new Error(`SUBAGENTS_LOG_LEVEL must be one of ${logLevels.join(', ')}, got "${env.SUBAGENTS_LOG_LEVEL}".`);
  }
  return { format, level };
}

/** One JSON line per log record: time, level, message, agentId, turn, then Temporal's metadata. */
export function formatJsonLogEntry(entry: LogEntry): string {
  const meta = entry.meta ?? {};
  const record: Record<string, unknown> = {
    time: new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString(),
    level: entry.level,
    message: entry.message,
  };
  const agentId = meta.agentId ?? meta.workflowId;
  if (agentId !== undefined) record.agentId = agentId;
  if (meta.turn !== undefined) record.turn = meta.turn;
  for (const [key, value] of Object.entries(meta)) {
    if (!(key in record)) record[key] = value;
  }
  try {
    return JSON.stringify(record, jsonValue);
  } catch {
    // Circular metadata: still one line, never a crash of the logger.
    return JSON.stringify({
      time: record.time,
      level: record.level,
      message: record.message,
      agentId: record.agentId,
      meta: inspect(meta, { depth: 3, breakLength: Infinity }),
    });
  }
}

function jsonValue(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}

/** A Temporal Logger for the options; `write` receives each JSON line (default: stderr). */
export function createLogger(
  options: LoggingOptions,
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Logger {
  if (options.format === 'text') return new DefaultLogger(options.level);
  return new DefaultLogger(options.level, (entry) => write(formatJsonLogEntry(entry)));
}

/** Installs the process-wide Runtime logger, once, before the first NativeConnection; json mode forwards core logs. */
export function installRuntimeLogging(env: NodeJS.ProcessEnv = process.env): Logger {
  const options = loggingFromEnv(env);
  const logger = createLogger(options);
  Runtime.install({
    logger,
    telemetryOptions: {
      logging:
        options.format === 'json'
          ? { filter: { core: 'WARN', other: 'ERROR' }, forward: {} }
          : { filter: { core: 'WARN', other: 'ERROR' } },
    },
  });
  return logger;
}

/** What to pass to workers and clients when tracing is on. */
export interface Telemetry {
  /** WorkerOptions.interceptors; `workflowModules` takes effect only when the worker bundles its workflows (workflowsPath). */
  workerInterceptors: WorkerInterceptors;
  /** WorkerOptions.sinks: exports the spans created inside workflow code. */
  sinks: NonNullable<WorkerOptions['sinks']>;
  /** ClientOptions.interceptors for every Client (the one activities use, the CLI's) so starts and signals carry the trace. */
  clientInterceptors: { workflow: WorkflowClientInterceptor[] };
  /** Flushes pending spans and unregisters the global tracer; call after worker.run() returns. */
  shutdown(): Promise<void>;
}

/** Options of setupTelemetry (tests inject an in-memory exporter). */
export interface TelemetryOptions {
  env?: NodeJS.ProcessEnv;
  /** Default: OTLP over HTTP, configured by the standard OTEL_EXPORTER_OTLP_* variables. */
  spanExporter?: SpanExporter;
  /** Default OTEL_SERVICE_NAME, else "durable-subagents-worker". */
  serviceName?: string;
}

/** True when SUBAGENTS_OTEL asks for tracing (1 or true). Off by default. */
export function telemetryEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.SUBAGENTS_OTEL?.trim().toLowerCase();
  return value === '1' || value === 'true';
}

/** OpenTelemetry tracing when SUBAGENTS_OTEL is set; registers global providers, so call once per process. */
export async function setupTelemetry(options: TelemetryOptions = {}): Promise<Telemetry | undefined> {
  const env = options.env ?? process.env;
  if (!telemetryEnabled(env)) return undefined;
  const [
    api,
    { AsyncLocalStorageContextManager },
    { Resource },
    { BasicTracerProvider, BatchSpanProcessor },
    worker,
    client,
  ] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-base'),
    import('@temporalio/interceptors-opentelemetry/lib/worker'),
    import('@temporalio/interceptors-opentelemetry/lib/client'),
  ]);
  const exporter =
    options.spanExporter ?? new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  const resource = new Resource({
    'service.name': options.serviceName ?? (env.OTEL_SERVICE_NAME?.trim() || 'durable-subagents-worker'),
  });
  const spanProcessor = new BatchSpanProcessor(exporter);
  const provider = new BasicTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register({ contextManager: new AsyncLocalStorageContextManager().enable() });
  const workflowInterceptors = createRequire(import.meta.url).resolve(
    '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors',
  );
  return {
    workerInterceptors: {
      workflowModules: [workflowInterceptors],
      activity: [
        (context) => ({
          inbound: new worker.OpenTelemetryActivityInboundInterceptor(context),
          outbound: new worker.OpenTelemetryActivityOutboundInterceptor(context),
        }),
      ],
    },
    sinks: { exporter: worker.makeWorkflowExporter(spanProcessor, resource) },
    clientInterceptors: { workflow: [new client.OpenTelemetryWorkflowClientInterceptor()] },
    shutdown: async () => {
      await provider.shutdown();
      api.trace.disable();
      api.context.disable();
      api.propagation.disable();
    },
  };
}
