// @slow
// SUBAGENTS_OTEL=1 wired as `subagents worker` wires it (the worker bundles its workflows with the
// OpenTelemetry interceptors): one agent on the real dev server yields one connected trace.
import Anthropic from '@anthropic-ai/sdk';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { SubagentsClient } from '../../src/client/client';
import { startModelServer } from '../../src/model-server/server';
import { setupTelemetry } from '../../src/worker/observability';
import { createAgentWorker } from '../../src/worker/worker';
import { testHomeDir, uniqueTaskQueue } from '../helpers/temporal';

/** Keeps its spans after shutdown (the SDK's in-memory exporter clears them). */
class KeepingSpanExporter extends InMemorySpanExporter {
  override shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

describe('OpenTelemetry tracing (SUBAGENTS_OTEL=1)', () => {
  it('traces an agent from the client start through its workflow and its model call', async () => {
    try {
      Runtime.install({ logger: new DefaultLogger('WARN') });
    } catch {
      // Already installed in this process.
    }
    const exporter = new KeepingSpanExporter();
    const telemetry = (await setupTelemetry({ env: { SUBAGENTS_OTEL: '1' }, spanExporter: exporter }))!;
    const address = inject('temporalAddress');
    const modelServer = await startModelServer({ port: 0, behaviour: { kind: 'echo' } });
    const nativeConnection = await NativeConnection.connect({ address });
    const connection = await Connection.connect({ address });
    const workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'subagents-otel-')));
    let spans: ReadableSpan[] = [];
    let agentId = '';
    try {
      const temporal = new Client({ connection, namespace: 'default', interceptors: telemetry.clientInterceptors });
      const taskQueue = uniqueTaskQueue('otel');
      // No workflowBundle: the worker bundles src/workflows with the interceptor module itself.
      const worker = await createAgentWorker({
        connection: nativeConnection,
        client: temporal,
        namespace: 'default',
        taskQueue,
        anthropic: new Anthropic({ apiKey: 'test-key', baseURL: modelServer.url, maxRetries: 0 }),
        homeDir: testHomeDir(),
        workerOptions: { interceptors: telemetry.workerInterceptors, sinks: telemetry.sinks },
      });
      const handle = await worker.runUntil(async () => {
        const started = await new SubagentsClient(temporal, taskQueue).startAgent({
          prompt: 'say hello',
          cwd: workspace,
          model: 'claude-test-tiny',
          homeDir: testHomeDir(),
        });
        expect((await started.result()).status).toBe('completed');
        return started;
      });
      agentId = handle.agentId;
    } finally {
      await telemetry.shutdown();
      spans = exporter.getFinishedSpans();
      await connection.close();
      await nativeConnection.close();
      await modelServer.close();
      rmSync(workspace, { recursive: true, force: true });
    }

    const named = (name: string) => spans.filter((span) => span.name === name);
    const start = named('StartWorkflow:agentWorkflow')[0]!;
    expect(start.attributes.temporalWorkflowId).toBe(agentId);
    const traceId = start.spanContext().traceId;
    // Workflow spans come through the worker's sink; activity spans from the activity interceptor.
    for (const name of ['RunWorkflow:agentWorkflow', 'StartActivity:callModel', 'RunActivity:callModel']) {
      expect(
        named(name).map((span) => span.spanContext().traceId),
        name,
      ).toContain(traceId);
    }
    const runActivity = named('RunActivity:callModel').find((span) => span.spanContext().traceId === traceId)!;
    const startActivityIds = named('StartActivity:callModel').map((span) => span.spanContext().spanId);
    expect(startActivityIds).toContain(runActivity.parentSpanId);
    expect(runActivity.attributes.temporalWorkflowId).toBe(agentId);
  });
});
