import { compactUpdate, resumeDescendantUpdate, transcriptQuery } from '../../shared/protocol/definitions';
import { compactInputSchema, resumeDescendantSchema, transcriptQuerySchema } from '../../shared/protocol/input-schemas';
import type { AgentParts } from './agent-parts';
import { contextWindowFor, estimateNextRequestTokens } from '../context/context-meter';
import type { InputGuard } from '../runtime/input-guard';
import { resumeDescendant } from '../tree/resume-in-tree';

/** Handlers of long runs (docs/cli.md): `compact`, `transcript` and `resumeDescendant`, inputs guarded. */
export function installLongRunHandlers(
  agent: Pick<AgentParts, 'input' | 'state' | 'progress' | 'compaction' | 'children' | 'tree'>,
  guard: InputGuard,
): void {
  const { input, state, progress, compaction } = agent;
  const finished = (what: string) => {
    const result = progress.current.result;
    if (result) throw new Error(`Agent ${input.agentId} already finished (${result.status}); ${what}.`);
  };

  guard.update(
    compactUpdate,
    compactInputSchema,
    ({ by, instructions }) => {
      compaction.request(by ?? 'user', instructions);
      return {
        queued: true as const,
        turn: state.turn,
        estimatedTokens: estimateNextRequestTokens(input, state),
        window: contextWindowFor(input),
      };
    },
    () => finished('there is nothing to compact'),
  );

  guard.query(transcriptQuery, transcriptQuerySchema, ({ from }) => ({
    ...state.conversation.transcript(from),
    turnMarks: state.turns.marksInRun(),
  }));

  guard.update(
    resumeDescendantUpdate,
    resumeDescendantSchema,
    (request) => resumeDescendant(agent, request),
    (request) => {
      finished(`resume ${request.agentId} through a running ancestor, or directly`);
      if (!request.agentId.startsWith(`${input.agentId}.`))
        throw new Error(`${request.agentId} is not a descendant of ${input.agentId}.`);
    },
  );
}
