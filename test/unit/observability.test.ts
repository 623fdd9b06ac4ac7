import { existsSync } from 'node:fs';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Context as ActivityContext } from '@temporalio/activity';
import type { WorkflowStartInput } from '@temporalio/client';
import { defaultPayloadConverter, type Headers } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import {
  createLogger,
  formatJsonLogEntry,
  loggingFromEnv,
  setupTelemetry,
  telemetryEnabled,
} from '../../src/worker/observability';

const noTrace = '00000000000000000000000000000000';

/** Keeps its spans after shutdown (the SDK's in-memory exporter clears them), so the test reads what shutdown flushed. */
class KeepingSpanExporter extends InMemorySpanExporter {
  override shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

describe('loggingFromEnv', () => {
  it('defaults to text at INFO and accepts any case', () => {
    expect(loggingFromEnv({})).toEqual({ format: 'text', level: 'INFO' });
    expect(loggingFromEnv({ SUBAGENTS_LOG_FORMAT: 'JSON', SUBAGENTS_LOG_LEVEL: 'debug' })).toEqual({
      format: 'json',
      level: 'DEBUG',
    });
  });

  it('refuses unknown values, saying what is allowed', () => {
    expect(() => loggingFromEnv({ SUBAGENTS_LOG_FORMAT: 'xml' })).toThrow(
      'SUBAGENTS_LOG_FORMAT must be "text" or "json", got "xml"',
    );
    expect(() => loggingFromEnv({ SUBAGENTS_LOG_LEVEL: 'loud' })).toThrow(
      'SUBAGENTS_LOG_LEVEL must be one of TRACE, DEBUG, INFO, WARN, ERROR',
    );
  });
});

describe('JSON log lines', () => {
  it('put agentId (the workflow ID) and turn first, keep Temporal metadata, and serialise errors and bigints', () => {
    const line = formatJsonLogEntry({
      level: 'WARN',
      message: 'Activity failed',
      timestampNanos: 1_780_000_000_123_000_000n,
      meta: {
        workflowId: 'agent-1a2b.1',
        runId: 'run-1',
        activityType: 'callModel',
        attempt: 2,
        turn: 3,
        error: new Error('overloaded'),
        bytes: 12n,
      },
    });
    expect(line).not.toContain('\n');
    const record = JSON.parse(line);
    expect(Object.keys(record).slice(0, 5)).toEqual(['time', 'level', 'message', 'agentId', 'turn']);
    expect(record).toMatchObject({
      time: '2026-05-28T20:26:40.123Z',
      level: 'WARN',
      message: 'Activity failed',
      agentId: 'agent-1a2b.1',
      turn: 3,
      workflowId: 'agent-1a2b.1',
      runId: 'run-1',
      activityType: 'callModel',
      attempt: 2,
      bytes: '12',
    });
    expect(record.error).toMatchObject({ name: 'Error', message: 'overloaded' });
  });

  it('stays one line when metadata is circular', () => {
    const meta: Record<string, unknown> = { workflowId: 'agent-x' };
    meta.self = meta;
    const record = JSON.parse(formatJsonLogEntry({ level: 'INFO', message: 'loop', timestampNanos: 0n, meta }));
    expect(record).toMatchObject({ message: 'loop', agentId: 'agent-x' });
    expect(record.meta).toContain('[Circular');
  });

  it('are written by the json logger at or above its level only', () => {
    const lines: string[] = [];
    const logger = createLogger({ format: 'json', level: 'WARN' }, (line) => lines.push(line));
    logger.info('not shown', { workflowId: 'agent-1' });
    logger.warn('shown', { workflowId: 'agent-1', turn: 7 });
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ level: 'WARN', message: 'shown', agentId: 'agent-1', turn: 7 }),
    ]);
  });
});

describe('OpenTelemetry', () => {
  it('is off unless SUBAGENTS_OTEL is 1 or true, and then registers nothing', async () => {
    expect(telemetryEnabled({})).toBe(false);
    expect(telemetryEnabled({ SUBAGENTS_OTEL: '0' })).toBe(false);
    expect(telemetryEnabled({ SUBAGENTS_OTEL: 'true' })).toBe(true);
    expect(await setupTelemetry({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' } })).toBeUndefined();
    expect(trace.getTracer('probe').startSpan('probe').spanContext().traceId).toBe(noTrace);
  });

  it('when on, carries one trace from a client start into the activity, and unregisters on shutdown', async () => {
    const exporter = new KeepingSpanExporter();
    const telemetry = (await setupTelemetry({ env: { SUBAGENTS_OTEL: '1' }, spanExporter: exporter }))!;
    expect(telemetry).toBeDefined();
    expect(telemetry.workerInterceptors.workflowModules).toHaveLength(1);
    expect(existsSync(telemetry.workerInterceptors.workflowModules![0]!)).toBe(true);
    expect(Object.keys(telemetry.sinks)).toEqual(['exporter']);

    // The client side puts the trace context into the workflow start headers ...
    let sentHeaders: Headers = {};
    const startInterceptor = telemetry.clientInterceptors.workflow[0]!;
    const input = {
      workflowType: 'agentWorkflow',
      headers: {},
      options: { workflowId: 'agent-otel', taskQueue: 'q', args: [] },
    } as unknown as WorkflowStartInput;
    await startInterceptor.start!(input, async (withHeaders) => {
      sentHeaders = withHeaders.headers;
      return 'run-otel';
    });
    const carried = defaultPayloadConverter.fromPayload<Record<string, string>>(sentHeaders['_tracer-data']!);
    expect(carried.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);

    // ... and the activity side continues that trace (same headers travel workflow → activity).
    const activityContext = {
      info: {
        activityType: 'callModel',
        activityId: '7',
        inWorkflow: true,
        workflowExecution: { workflowId: 'agent-otel', runId: 'run-otel' },
      },
    } as unknown as ActivityContext;
    const interceptors = telemetry.workerInterceptors.activity![0]!(activityContext);
    await interceptors.inbound!.execute!({ args: [], headers: sentHeaders }, async () => 'done');

    await telemetry.shutdown();
    const spans = exporter.getFinishedSpans();
    const start = spans.find((span) => span.name === 'StartWorkflow:agentWorkflow')!;
    const run = spans.find((span) => span.name === 'RunActivity:callModel')!;
    expect(start.attributes).toMatchObject({ temporalWorkflowId: 'agent-otel', run_id: 'run-otel' });
    expect(run.spanContext().traceId).toBe(start.spanContext().traceId);
    expect(run.parentSpanId).toBe(start.spanContext().spanId);
    expect(run.attributes).toMatchObject({ temporalWorkflowId: 'agent-otel', temporalActivityId: '7' });
    expect(trace.getTracer('probe').startSpan('probe').spanContext().traceId).toBe(noTrace);
  });
});
