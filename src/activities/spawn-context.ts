import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { ErrorType, errorText } from '../shared/protocol/errors';
import type { SpawnContext } from '../shared/agents/agent-definition';
import { resumeStateQuery, type ResumeState } from '../shared/protocol/definitions';
import { loadAgentDefinitionsAndMcp } from '../project/agent-definitions/load';
import { reportUntrustedOnce } from '../project/mcp-trust';
import { mergeSdkAgents, type SdkAgents } from '../shared/agents/sdk-agents';

/** Creates `loadSpawnContext`: definitions (user definitions from `homeDir`) and MCP servers for a cwd, and the SUBAGENTS_SUBAGENT_MODEL override. */
export function createSpawnContextLoader(
  homeDir: string,
  log: (line: string) => void = (line) => console.warn(`worker: ${line}`),
  /** The plugin's Claude Agent SDK `agents`; the tree's own (`input.sdkAgents`, from `startAgent`) win over them. */
  pluginAgents?: SdkAgents,
) {
  return async function loadSpawnContext(input: { cwd: string; sdkAgents?: SdkAgents }): Promise<SpawnContext> {
    const files = await loadAgentDefinitionsAndMcp({ cwd: input.cwd, homeDir });
    const { mcp } = files;
    const loaded = mergeSdkAgents(files.loaded, pluginAgents, input.sdkAgents);
    reportUntrustedOnce(mcp.untrusted, log);
    const override = process.env.SUBAGENTS_SUBAGENT_MODEL?.trim();
    return { loaded, ...(override ? { subagentModelOverride: override } : {}), mcpServers: mcp.servers };
  };
}

/** Reads what a new run of a finished agent needs (its input and conversation) from its last run. */
export function createResumeActivities(temporalClient: Client) {
  return {
    async fetchResumeState(input: { agentId: string }): Promise<ResumeState> {
      try {
        return await temporalClient.workflow.getHandle(input.agentId).query(resumeStateQuery);
      } catch (error) {
        // Asking again cannot make an agent exist.
        if (error instanceof WorkflowNotFoundError)
          throw ApplicationFailure.nonRetryable(
            errorText(ErrorType.AgentNotFound, `no agent "${input.agentId}".`),
            ErrorType.AgentNotFound,
          );
        throw error;
      }
    },
  };
}
