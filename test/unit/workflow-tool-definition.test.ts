import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  parseWorkflowToolInput,
  workflowToolDefinition,
  workflowToolDescription,
  workflowToolInputJsonSchema,
  workflowToolInputSchema,
} from '../../src/shared/tools/workflow-tool-definition';

describe('the Workflow tool input', () => {
  it('shows the model the JSON Schema of the zod schema it is checked with', () => {
    const { $schema: _ignored, ...generated } = z.toJSONSchema(workflowToolInputSchema(), { io: 'input' });
    expect(generated).toEqual(workflowToolInputJsonSchema);
  });

  it('accepts one source with its options, null fields as left out', () => {
    expect(
      parseWorkflowToolInput({
        name: 'sweep',
        args: { folders: ['src'] },
        maxConcurrentAgents: 4,
        budget: 1000,
        script: null,
      }),
    ).toEqual({ ok: true, value: { name: 'sweep', args: { folders: ['src'] }, maxConcurrentAgents: 4, budget: 1000 } });
  });

  it('refuses no source, unknown fields and out-of-range numbers with what to fix', () => {
    expect(parseWorkflowToolInput({ args: 1 })).toEqual({
      ok: false,
      error:
        'InvalidToolInput: Workflow was called with invalid input: give one of script (the source), name (a saved script) ' +
        'or scriptPath (a file). Fix the input and call Workflow again.',
    });
    const problems = (raw: Record<string, unknown>) => {
      const parsed = parseWorkflowToolInput(raw);
      return parsed.ok ? '' : parsed.error;
    };
    expect(problems({ name: 'a', extra: 1 })).toMatch(/extra/);
    expect(problems({ name: 'a', maxConcurrentAgents: 0 })).toMatch(/"maxConcurrentAgents"/);
    expect(problems({ name: 'a', maxConcurrentAgents: 65 })).toMatch(/"maxConcurrentAgents"/);
    expect(problems({ name: 'a', budget: 1.5 })).toMatch(/"budget"/);
    expect(problems({ name: 'a', budget: -1 })).toMatch(/"budget"/);
    expect(problems({ script: '' })).toMatch(/"script"/);
  });
});

describe('the Workflow tool description', () => {
  it('lists saved scripts sorted by name, one line each, after the reference', () => {
    const description = workflowToolDescription([
      { name: 'zeta', description: 'Last\nscript', origin: 'user', path: '/h/zeta.js' },
      { name: 'alpha', description: 'First', whenToUse: 'Always', origin: 'project', path: '/p/alpha.js' },
    ]);
    expect(description).toContain('End your turn after starting it: do not poll');
    expect(
      description.endsWith(
        'Saved scripts (run one with name):\n- alpha: First When to use: Always\n- zeta: Last script',
      ),
    ).toBe(true);
    expect(workflowToolDescription([])).not.toContain('Saved scripts');
    expect(workflowToolDefinition([]).input_schema).toBe(workflowToolInputJsonSchema);
  });

  it('keeps the list bounded', () => {
    const many = Array.from({ length: 60 }, (_, index) => ({
      name: `s${String(index).padStart(2, '0')}`,
      description: 'd'.repeat(1000),
      origin: 'project' as const,
      path: `/p/s${index}.js`,
    }));
    const description = workflowToolDescription(many);
    expect(description).toContain('(10 more saved scripts are not listed.)');
    expect(description).not.toContain('d'.repeat(300));
  });
});
