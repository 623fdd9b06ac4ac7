import { describe, expect, it } from 'vitest';
import {
  parseAgentToolInput,
  unknownAgentToolFields,
  unknownAgentToolFieldsError,
} from '../../src/workflows/tree/agent-tool-input';

describe('parseAgentToolInput', () => {
  it('accepts a complete input and trims strings', () => {
    const parsed = parseAgentToolInput({
      description: ' find it ',
      prompt: 'Find the parser',
      subagent_type: 'Explore',
      run_in_background: true,
      name: 'finder',
    });
    expect(parsed).toEqual({
      ok: true,
      value: {
        description: 'find it',
        prompt: 'Find the parser',
        subagent_type: 'Explore',
        model: undefined,
        run_in_background: true,
        name: 'finder',
        isolation: undefined,
        cwd: undefined,
      },
    });
  });

  it('names every bad field', () => {
    const parsed = parseAgentToolInput({ prompt: 3, run_in_background: 'yes', isolation: 'docker', name: 'bad name!' });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error).toContain('"description"');
    expect(parsed.error).toContain('"prompt"');
    expect(parsed.error).toContain('"run_in_background" must be a boolean');
    expect(parsed.error).toContain('"isolation" must be "worktree"');
    expect(parsed.error).toContain('"name" may use');
  });

  it('takes names in any script, and refuses spaces, punctuation, control characters and more than 64 letters', () => {
    for (const name of ['審査係', 'レビュー担当', 'проверка_2', 'समीक्षक', 'a-b_c']) {
      expect(parseAgentToolInput({ description: 'd', prompt: 'p', name }).ok, name).toBe(true);
    }
    for (const name of ['two words', 'line\nbreak', 'a/b', 'x'.repeat(65), '審'.repeat(65), 'tab\there', '']) {
      const parsed = parseAgentToolInput({ description: 'd', prompt: 'p', name });
      if (name === '') continue; // an empty name is no name
      expect(parsed.ok, JSON.stringify(name)).toBe(false);
    }
  });

  it('refuses cwd together with isolation', () => {
    const parsed = parseAgentToolInput({ description: 'd', prompt: 'p', cwd: '/tmp', isolation: 'worktree' });
    expect(parsed.ok).toBe(false);
  });

  it('finds fields the Agent tool does not have, and names each in the error with what to do instead', () => {
    expect(unknownAgentToolFields({ description: 'd', prompt: 'p', subagent_type: 'Explore' })).toEqual([]);
    expect(
      unknownAgentToolFields({ description: 'd', prompt: 'p', resume: 'agent-1.2', max_turns: 5, 'weird key': null }),
    ).toEqual(['resume', 'max_turns', 'weird key']);
    const text = unknownAgentToolFieldsError(['resume', 'max_turns']);
    expect(text).toMatch(
      /^InvalidToolInput: the Agent tool has no field "resume" \(to continue a finished agent, use SendMessage/,
    );
    expect(text).toContain('"max_turns" (the turn limit comes from the agent type');
    expect(text).toContain('Nothing was started');
    expect(text).toContain('description, prompt, subagent_type, model, run_in_background, name, isolation, cwd');
  });
});
