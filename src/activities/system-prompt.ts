import { renderSystemPromptText } from './prompt/render-agent-start';

/** Input of `renderSystemPrompt`. */
export interface RenderSystemPromptInput {
  definitionPrompt: string;
  cwd: string;
  agentType: string;
  model: string;
}

/**
 * The activity agents started before `renderAgentStart` existed call (kept registered so those
 * runs go on): the system prompt of a root-level agent with the current guidance.
 */
export function createRenderSystemPrompt(homeDir: string) {
  return async function renderSystemPrompt(input: RenderSystemPromptInput): Promise<string> {
    return renderSystemPromptText({ definitionPrompt: input.definitionPrompt, cwd: input.cwd, model: input.model, subagent: false, oneShot: false, homeDir });
  };
}
