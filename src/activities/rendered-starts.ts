import { Context } from '@temporalio/activity';
import { textHash } from '../shared/model/conversation-hash';
import { setRecent } from '../project/recent-map';

/** System prompts rendered here, taken by the run's first model call instead of a query (docs/architecture.md). */
export class RenderedStarts {
  private readonly prompts = new Map<string, string>();

  constructor(private readonly capacity = 256) {}

  /** Remembers the prompt `renderAgentStart` rendered, when it ran as a local activity (inside its run's workflow task). */
  rememberFromActivity(systemPrompt: string): void {
    const { isLocal, workflowExecution } = Context.current().info;
    if (isLocal && workflowExecution)
      this.remember(runKey(workflowExecution.workflowId, workflowExecution.runId), systemPrompt);
  }

  remember(key: string, systemPrompt: string): void {
    setRecent(this.prompts, key, systemPrompt, this.capacity);
  }

  /** The prompt rendered for `key`, if it hashes to `hash` (and forgets it: a run needs it once). */
  take(key: string, hash: string): string | undefined {
    const prompt = this.prompts.get(key);
    if (prompt === undefined || textHash(prompt) !== hash) return undefined;
    this.prompts.delete(key);
    return prompt;
  }
}

/** The key of a workflow run, as the conversation cache keys it. */
export const runKey = (workflowId: string, runId: string): string => `${workflowId}/${runId}`;
