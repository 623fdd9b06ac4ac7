import { renderSystemPromptText } from './prompt/render-agent-start';

/** Input of `renderSystemPrompt`. */
export interface RenderSystemPromptInput {
  definitionPrompt: string;
  cwd: string;
  agentType: string;
  model: string;
}

/** A root-level agent's system prompt; kept registered for runs started before `renderAgentStart`. */
export function createRenderSystemPrompt(homeDir: string) {
  return async function renderSystemPrompt(input: RenderSystemPromptInput): Promise<string> {
    return renderSystemPromptText({
      definitionPrompt: input.definitionPrompt,
      cwd: input.cwd,
      model: input.model,
      subagent: false,
      oneShot: false,
      homeDir,
    });
  };
}
