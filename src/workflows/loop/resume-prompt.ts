// A resumed agent's new prompt passes UserPromptSubmit, as a resumed Claude Code session's prompt does (docs/hooks.md).
import type { MessageParam } from '../../shared/model/messages';
import { screenPrompt } from '../tools/hook-events';
import type { AgentParts } from './agent-parts';

/** Screens the prompt `subagents resume` appended: a block takes it out again (the reason is returned), context follows it. */
export async function screenResumedPrompt(agent: AgentParts): Promise<string | undefined> {
  const { state } = agent;
  const last = state.messages[state.messages.length - 1];
  const blocks = last?.role === 'user' && Array.isArray(last.content) ? last.content : undefined;
  const prompt = blocks?.[blocks.length - 1];
  if (!blocks || prompt?.type !== 'text') return undefined;
  const screened = await screenPrompt(agent, prompt.text);
  if (screened.type === 'deliver' && !screened.context) return undefined;
  // The conversation a later resume continues from holds no blocked prompt.
  const before = blocks.slice(0, -1);
  const kept: MessageParam['content'] =
    screened.type === 'blocked' ? before : [...blocks, { type: 'text', text: screened.context ?? '' }];
  state.conversation.truncateTo(state.messages.length - 1);
  if (kept.length > 0) state.append({ role: 'user', content: kept });
  return screened.type === 'blocked'
    ? `a UserPromptSubmit hook blocked the resumed prompt: ${screened.reason}`
    : undefined;
}
