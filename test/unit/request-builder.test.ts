import { describe, expect, it } from 'vitest';
import { type EffortLevel, effortForModel, effortLevels, isEffortLevel } from '../../src/shared/agents/effort';
import { buildModelRequest } from '../../src/activities/request-builder';
import type { MessageParam } from '../../src/shared/model/messages';
import { forkDirectiveIndex } from '../../src/shared/agents/fork-layout';

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
    message.content.forEach(
      (block, blockIndex) => 'cache_control' in block && block.cache_control && found.push(`m${index}.${blockIndex}`),
    );
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
    const request = { model: 'm', maxTokens: 32000, systemPrompt: 's', tools, messages };
    expect(buildModelRequest(request)).not.toHaveProperty('thinking');
    expect(buildModelRequest({ ...request, thinking: { type: 'enabled', budgetTokens: 4096 } }).thinking).toEqual({
      type: 'enabled',
      budget_tokens: 4096,
    });
    expect(buildModelRequest({ ...request, thinking: { type: 'adaptive' } }).thinking).toEqual({ type: 'adaptive' });
  });

  it('sends effort as output_config.effort, at the highest level the model takes', () => {
    const messages: MessageParam[] = [{ role: 'user', content: 'task' }];
    const request = (model: string, effort?: EffortLevel) =>
      buildModelRequest({ model, maxTokens: 32000, systemPrompt: 's', tools, messages, ...(effort ? { effort } : {}) });
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

  it("puts a fork's first last-message breakpoint on its last placeholder (the end of what siblings share), not on its directive", () => {
    const directive = {
      type: 'text' as const,
      text: '<fork-boilerplate>\nrules\n</fork-boilerplate>\n\nYour directive: check part 2',
    };
    const messages: MessageParam[] = [
      { role: 'user', content: 'review' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'a1', name: 'Agent', input: {} },
          { type: 'tool_use', id: 'a2', name: 'Agent', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'a1', content: 'Fork started' },
          { type: 'tool_result', tool_use_id: 'a2', content: 'Fork started' },
          directive,
        ],
      },
    ];
    const body = buildModelRequest({ model: 'm', maxTokens: 100, systemPrompt: 's', tools, messages });
    expect(breakpoints(body)).toEqual(['tool1', 'system0', 'm0.0', 'm2.1']);
    // The fork's second turn reads that entry through its previous-user breakpoint, on the directive message.
    const next = buildModelRequest({
      model: 'm',
      maxTokens: 100,
      systemPrompt: 's',
      tools,
      messages: [
        ...messages,
        { role: 'assistant', content: [{ type: 'tool_use', id: 'r1', name: 'Read', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'r1', content: 'x' }] },
      ],
    });
    expect(breakpoints(next)).toEqual(['tool1', 'system0', 'm2.2', 'm4.0']);
  });

  it('recognises only a fork first message: placeholders then the marked directive', () => {
    const marked = { type: 'text' as const, text: '<fork-boilerplate>x</fork-boilerplate>' };
    const result = { type: 'tool_result' as const, tool_use_id: 't', content: 'Fork started' };
    expect(forkDirectiveIndex({ role: 'user', content: [result, result, marked] })).toBe(2);
    expect(forkDirectiveIndex({ role: 'user', content: [marked] })).toBeUndefined();
    expect(forkDirectiveIndex({ role: 'user', content: '<fork-boilerplate>' })).toBeUndefined();
    expect(forkDirectiveIndex({ role: 'assistant', content: [result as never, marked] })).toBeUndefined();
    expect(
      forkDirectiveIndex({ role: 'user', content: [result, { type: 'text', text: 'see <fork-boilerplate>' }] }),
    ).toBeUndefined();
    expect(forkDirectiveIndex({ role: 'user', content: [{ type: 'text', text: 'note' }, marked] })).toBeUndefined();
    expect(forkDirectiveIndex(undefined)).toBeUndefined();
  });
});
