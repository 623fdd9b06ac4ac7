// MCP activities: an agent's servers and tools snapshotted once at its start, then calls (docs/tools.md, MCP).
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorType, errorText, messageOf } from '../../shared/protocol/errors';
import {
  mcpToolCallTimeoutMs,
  requiredMcpServerWaitMs,
  type McpToolCallInput,
  type StartMcpServersInput,
  type StartMcpServersResult,
} from '../../shared/tools/extra-tool-calls';
import type { McpServerStatus, ToolDescriptor } from '../../shared/tools/extra-tools';
import type { ToolCallResult } from '../../shared/tools/tools';
import { limitResult } from '../tools/result-limit';
import { defaultResultsDir } from '../tools/tool-env';
import type { McpConnection, McpConnectionPool } from '../../mcp/connection-pool';
import { describeMcpTools } from '../../mcp/descriptors';
import { resultTooLargeText } from '../../mcp/read-limit';
import { listServerTools } from '../../mcp/tool-listing';
import { toToolResult, type McpCallResult } from './result-content';

export interface McpActivityDependencies {
  pool: McpConnectionPool;
  resultsDir?: string;
}

/** Reported as a cancellation (not a result), so the workflow's cancelled turn sees the activity cancelled. */
const cancelled = (toolName: string) => new CancelledFailure(`${toolName} was cancelled`);

export function createMcpActivities({ pool, resultsDir }: McpActivityDependencies) {
  /** Connects the agent's servers (required ones are retried until the wait ends) and snapshots their tools. */
  async function startMcpServers(input: StartMcpServersInput): Promise<StartMcpServersResult> {
    const context = Context.current();
    const waitMs = input.waitMs ?? requiredMcpServerWaitMs;
    const deadline = Date.now() + waitMs;
    const beat = setInterval(() => context.heartbeat(), 1000);
    const { servers, required, filter } = input.mcp;
    try {
      const outcomes = await Promise.all(
        Object.entries(servers).map(async ([name, spec]) => {
          let lastError = '';
          for (;;) {
            try {
              const connection = await pool.acquire(name, spec, input.cwd);
              return { name, spec, tools: await listServerTools(connection, Math.max(1000, deadline - Date.now())) };
            } catch (error) {
              lastError = messageOf(error);
            }
            // Only a required server is waited for; the others are tried once.
            if (!required.includes(name) || Date.now() + 1000 >= deadline || context.cancellationSignal.aborted)
              return { name, spec, error: lastError };
            await sleep(1000);
          }
        }),
      );
      const descriptors: ToolDescriptor[] = [];
      const status: McpServerStatus[] = [];
      const requiredFailures = required
        .filter((name) => !(name in servers))
        .map((name) => ({
          name,
          error: `it is not configured (neither in .mcp.json nor in the agent's mcpServers), or its .mcp.json entry is not trusted here: \`subagents mcp list --dir ${input.cwd}\` shows how to trust it`,
        }));
      for (const outcome of outcomes) {
        if ('error' in outcome) {
          status.push({
            name: outcome.name,
            state: 'failed',
            error: outcome.error,
            tools: 0,
            transport: outcome.spec.type,
          });
          if (required.includes(outcome.name))
            requiredFailures.push({ name: outcome.name, error: outcome.error ?? 'unknown error' });
          continue;
        }
        const described = describeMcpTools(outcome.name, outcome.tools, filter);
        // Two server names can normalize to the same prefix; the API refuses duplicate tool names.
        const taken = new Set(descriptors.map((descriptor) => descriptor.definition.name));
        for (const descriptor of described.descriptors.filter((candidate) => taken.has(candidate.definition.name))) {
          described.skipped.push(`${descriptor.definition.name} (another server already has a tool of this name)`);
        }
        described.descriptors = described.descriptors.filter((candidate) => !taken.has(candidate.definition.name));
        descriptors.push(...described.descriptors);
        status.push({
          name: outcome.name,
          state: 'connected',
          tools: described.descriptors.length,
          transport: outcome.spec.type,
          ...(described.skipped.length > 0 ? { notes: described.skipped } : {}),
        });
      }
      return { extraTools: { descriptors, mcpServers: servers, status }, requiredFailures };
    } finally {
      clearInterval(beat);
    }
  }

  /** A connection for a call; the call has not run yet, so failing to connect is retried briefly. */
  async function connectForCall(input: McpToolCallInput, signal: AbortSignal): Promise<McpConnection> {
    let lastError: unknown;
    for (let attempt = 0; attempt < 3 && !signal.aborted; attempt++) {
      try {
        return await pool.acquire(input.server, input.spec, input.cwd);
      } catch (error) {
        lastError = error;
        await sleep(500 * (attempt + 1));
      }
    }
    throw lastError ?? new Error('cancelled');
  }

  /** One MCP tool call; its result becomes the tool_result (text, images, resource links), errors become error results. */
  async function callMcpTool(input: McpToolCallInput): Promise<ToolCallResult> {
    const context = Context.current();
    const signal = context.cancellationSignal;
    const beat = setInterval(() => context.heartbeat(), 1000);
    try {
      let connection: McpConnection;
      try {
        connection = await connectForCall(input, signal);
      } catch (error) {
        if (signal.aborted) throw cancelled(input.toolName);
        return {
          isError: true,
          content: errorText(
            ErrorType.McpServerUnavailable,
            `the MCP server "${input.server}" could not be started or reached: ${messageOf(error)}. ${input.toolName} did not run.`,
          ),
        };
      }
      let result: McpCallResult;
      try {
        result = (await connection.client.callTool({ name: input.tool, arguments: input.arguments }, undefined, {
          signal,
          timeout: mcpToolCallTimeoutMs,
          resetTimeoutOnProgress: true,
          onprogress: () => context.heartbeat(),
        })) as McpCallResult;
      } catch (error) {
        if (signal.aborted) throw cancelled(input.toolName);
        // Loaded with the connection already (the SDK's client imports it): not with the worker.
        const { ErrorCode, McpError } = await import('@modelcontextprotocol/sdk/types.js');
        const closed = !connection.alive || (error instanceof McpError && error.code === ErrorCode.ConnectionClosed);
        // Closed by the SDK over an oversized answer: the tool ran, and it would answer the same again.
        if (closed && connection.readLimitExceeded !== undefined)
          return {
            isError: true,
            content: resultTooLargeText(input.server, input.toolName, connection.readLimitExceeded),
          };
        if (closed && input.retrySafe) {
          // Safe to run again: Temporal retries the activity, which opens a new connection (the server is restarted).
          throw ApplicationFailure.retryable(
            `the MCP server "${input.server}" stopped during ${input.toolName}; retrying on a restarted server`,
            ErrorType.McpServerStopped,
          );
        }
        if (closed) {
          return {
            isError: true,
            content: errorText(
              ErrorType.McpServerStopped,
              `the MCP server "${input.server}" stopped while ${input.toolName} ran (it is restarted for the next call). The call may have partially run: check its effects before calling it again.`,
            ),
          };
        }
        if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
          return {
            isError: true,
            content: errorText(
              ErrorType.McpToolTimeout,
              `${input.toolName} did not answer within ${mcpToolCallTimeoutMs / 1000} s and was cancelled.`,
            ),
          };
        }
        return { isError: true, content: `${input.toolName} failed: ${messageOf(error)}` };
      }
      const converted = toToolResult(result, input.maxResultChars);
      if (converted.blocks) return converted;
      const call = {
        context: {
          agentId: input.agentId,
          workspaceRoot: input.cwd,
          cwd: input.cwd,
          maxResultChars: input.maxResultChars,
        },
        toolUseId: input.toolUseId,
        input: {},
      };
      return limitResult(converted, call, resultsDir ?? defaultResultsDir());
    } finally {
      clearInterval(beat);
    }
  }

  return { startMcpServers, callMcpTool };
}
