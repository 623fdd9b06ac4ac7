import { describe, expect, it } from 'vitest';
import { parseAgentToolInput } from '../../src/workflows/agent-tool-input';

describe('parseAgentToolInput', () => {
  it('accepts a complete input and trims strings', () => {
    const parsed = parseAgentToolInput({ description: ' find it ', prompt: 'Find the parser', subagent_type: 'Explore', run_in_background: true, name: 'finder' });
    expect(parsed).toEqual({
      ok: true,
      value: { description: 'find it', prompt: 'Find the parser', subagent_type: 'Explore', model: undefined, run_in_background: true, name: 'finder', isolation: undefined, cwd: undefined },
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

  it('refuses cwd together with isolation', () => {
    const parsed = parseAgentToolInput({ description: 'd', prompt: 'p', cwd: '/tmp', isolation: 'worktree' });
    expect(parsed.ok).toBe(false);
  });
});
