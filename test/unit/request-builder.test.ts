import { describe, expect, it } from 'vitest';
import { buildModelRequest } from '../../src/activities/request-builder';
import type { MessageParam } from '../../src/shared/messages';

const tools = [
  { name: 'Read', description: 'r', input_schema: { type: 'object' } },
  { name: 'Glob', description: 'g', input_schema: { type: 'object' } },
];

function breakpoints(body: ReturnType<typeof buildModelRequest>): string[] {
  const found: string[] = [];
  body.tools?.forEach((tool, index) => tool.cache_control && found.push(`tool${index}`));
  body.system.forEach((block, index) => block.cache_control && found.push(`system${index}`));
  body.messages.forEach((message, index) => {
    if (typeof message.content === 'string') return;
    message.content.forEach((block, blockIndex) => 'cache_control' in block && block.cache_control && found.push(`m${index}.${blockIndex}`));
  });
  return found;
}

describe('buildModelRequest', () => {
  it('places at most four breakpoints: last tool, system, last message, previous turn end', () => {
    const messages: MessageParam[] = [
      { role: 'user', content: 'task' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'x' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'Read', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: 'y' }] },
    ];
    const body = buildModelRequest({ model: 'm', maxTokens: 10, systemPrompt: 'sys', tools, messages });
    expect(breakpoints(body)).toEqual(['tool1', 'system0', 'm2.0', 'm4.0']);
  });

  it('does not mutate the conversation it was given', () => {
    const messages: MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: 'task' }] }];
    const copy = structuredClone(messages);
    buildModelRequest({ model: 'm', maxTokens: 10, systemPrompt: 'sys', tools, messages });
    expect(messages).toEqual(copy);
  });

  it('leaves a message ending in a thinking block without a breakpoint', () => {
    const body = buildModelRequest({
      model: 'm',
      maxTokens: 10,
      systemPrompt: 's',
      tools: [],
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm', signature: 's' }] },
      ],
    });
    expect(breakpoints(body)).toEqual(['system0', 'm0.0']);
    expect(body.tools).toBeUndefined();
  });

  it('sends thinking only when the agent has it: a budget or adaptive', () => {
    const messages: MessageParam[] = [{ role: 'user', content: 'task' }];
    expect(buildModelRequest({ model: 'm', maxTokens: 32000, systemPrompt: 's', tools, messages })).not.toHaveProperty('thinking');
    expect(buildModelRequest({ model: 'm', maxTokens: 32000, systemPrompt: 's', tools, messages, thinking: { type: 'enabled', budgetTokens: 4096 } }).thinking).toEqual({
      type: 'enabled',
      budget_tokens: 4096,
    });
    expect(buildModelRequest({ model: 'm', maxTokens: 32000, systemPrompt: 's', tools, messages, thinking: { type: 'adaptive' } }).thinking).toEqual({ type: 'adaptive' });
  });
});

