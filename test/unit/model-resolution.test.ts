import { describe, expect, it } from 'vitest';
import { resolveSubagentModel } from '../../src/shared/agents/model-resolution';

describe('resolveSubagentModel', () => {
  it('takes the environment override first, then the call, then the definition, then the parent', () => {
    expect(
      resolveSubagentModel({
        environmentOverride: 'opus',
        callModel: 'haiku',
        definitionModel: 'sonnet',
        parentModel: 'p',
      }),
    ).toBe('claude-opus-5');
    expect(resolveSubagentModel({ callModel: 'haiku', definitionModel: 'sonnet', parentModel: 'p' })).toBe(
      'claude-haiku-4-5',
    );
    expect(resolveSubagentModel({ definitionModel: 'sonnet', parentModel: 'p' })).toBe('claude-sonnet-5');
    expect(resolveSubagentModel({ parentModel: 'claude-opus-4-8' })).toBe('claude-opus-4-8');
  });

  it("treats 'inherit' and blanks as absent", () => {
    expect(
      resolveSubagentModel({
        environmentOverride: ' ',
        callModel: 'inherit',
        definitionModel: 'inherit',
        parentModel: 'claude-x',
      }),
    ).toBe('claude-x');
  });

  it('passes full model ids through', () => {
    expect(resolveSubagentModel({ callModel: 'claude-sonnet-4-5', parentModel: 'p' })).toBe('claude-sonnet-4-5');
  });
});
