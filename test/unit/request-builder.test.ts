import { describe, expect, it } from 'vitest';
import { type EffortLevel, effortForModel, effortLevels, isEffortLevel } from '../../src/shared/effort';
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

  it('sends effort as output_config.effort, at the highest level the model takes', () => {
    const messages: MessageParam[] = [{ role: 'user', content: 'task' }];
    const request = (model: string, effort?: EffortLevel) => buildModelRequest({ model, maxTokens: 32000, systemPrompt: 's', tools, messages, ...(effort ? { effort } : {}) });
    expect(request('claude-opus-5')).not.toHaveProperty('output_config');
    expect(request('claude-opus-5', 'max').output_config).toEqual({ effort: 'max' });
    expect(request('claude-sonnet-5', 'low').output_config).toEqual({ effort: 'low' });
    // Opus 4.6 has max but not xhigh; Opus 4.5 stops at high.
    expect(request('claude-opus-4-6', 'xhigh').output_config).toEqual({ effort: 'high' });
    expect(request('claude-opus-4-5', 'max').output_config).toEqual({ effort: 'high' });
    // Models without the parameter get none rather than a 400.
    expect(request('claude-haiku-4-5', 'high')).not.toHaveProperty('output_config');
    // A model the table does not know gets the effort unchanged.
    expect(request('my-proxy-model', 'medium').output_config).toEqual({ effort: 'medium' });
  });

  it('knows the levels: isEffortLevel refuses anything else', () => {
    expect(effortLevels).toEqual(['low', 'medium', 'high', 'xhigh', 'max']);
    for (const bad of ['LOW', 'extreme', '', 3, null, undefined, {}]) expect(isEffortLevel(bad)).toBe(false);
    expect(effortForModel('claude-opus-4-7', 'xhigh')).toBe('xhigh');
    expect(effortForModel('claude-sonnet-4-6', 'max')).toBe('high');
  });
});

