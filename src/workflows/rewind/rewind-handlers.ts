import { setHandler } from '@temporalio/workflow';
import {
  forkSubagentUpdate,
  rewindUpdate,
  turnConversationQuery,
  turnsQuery,
} from '../../shared/rewind/rewind-protocol';
import { forkSubagentSchema, rewindInputSchema, turnConversationSchema } from '../../shared/protocol/input-schemas';
import type { AgentParts } from '../loop/agent-parts';
import type { InputGuard } from '../runtime/input-guard';
import { writesFiles } from './checkpoint-turn';
import { forkSubagent } from './fork-in-tree';
import { requestRewind, validateRewind } from './rewinding';

/** Handlers of fork and rewind (docs/rewind.md): the turn queries, `rewind`, and `forkSubagent` on a source's parent. */
export function installRewindHandlers(agent: AgentParts, guard: InputGuard): void {
  const { input, state, progress } = agent;
  guard.query(turnConversationQuery, turnConversationSchema, ({ turn }) =>
    state.turns.conversationAt(state.conversation, state.systemPrompt, turn),
  );
  setHandler(turnsQuery, () => ({
    agentId: input.agentId,
    boundaries: [...state.turns.boundaries],
    writesFiles: writesFiles(agent),
    ...(state.turns.checkpointsUnavailable ? { checkpointsUnavailable: state.turns.checkpointsUnavailable } : {}),
  }));
  guard.update(
    rewindUpdate,
    rewindInputSchema,
    (request) => requestRewind(agent, request),
    (request) => validateRewind(agent, request),
  );
  guard.update(
    forkSubagentUpdate,
    forkSubagentSchema,
    (request) => forkSubagent(agent, request),
    (request) => {
      const result = progress.current.result;
      if (result)
        throw new Error(
          `Agent ${input.agentId} already finished (${result.status}); fork ${request.sourceAgentId} as a new root instead.`,
        );
      const rest = request.sourceAgentId.startsWith(`${input.agentId}.`)
        ? request.sourceAgentId.slice(input.agentId.length + 1)
        : undefined;
      if (rest === undefined || rest.includes('.'))
        throw new Error(
          `${request.sourceAgentId} is not a child of ${input.agentId}; a fork is placed beside its source.`,
        );
    },
  );
}
