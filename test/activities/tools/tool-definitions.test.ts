import fs from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { bashInput } from '../../../src/activities/tools/bash';
import { editInput } from '../../../src/activities/tools/edit';
import { globInput } from '../../../src/activities/tools/glob';
import { grepInput } from '../../../src/activities/tools/grep';
import { readInput } from '../../../src/activities/tools/read';
import { writeInput } from '../../../src/activities/tools/write';
import { isReadOnlyTool, readOnlyToolNames, workspaceToolNames } from '../../../src/shared/policy/tool-classification';
import { toolDefinitions } from '../../../src/shared/tools/tool-definitions';

const schemas = {
  Read: readInput,
  Glob: globInput,
  Grep: grepInput,
  Write: writeInput,
  Edit: editInput,
  Bash: bashInput,
};

describe('tool definitions', () => {
  it('describe exactly the fields the activities accept', () => {
    for (const name of workspaceToolNames) {
      const definition = toolDefinitions[name];
      const schema = schemas[name];
      expect(definition.name).toBe(name);
      const properties = definition.input_schema.properties as Record<string, unknown>;
      expect(Object.keys(properties), name).toEqual(Object.keys(schema.shape));
      const required = Object.entries(schema.shape)
        .filter(([, field]) => !field.safeParse(undefined).success)
        .map(([key]) => key);
      expect(definition.input_schema.required, name).toEqual(required);
      expect(definition.input_schema.additionalProperties).toBe(false);
      expect(definition.description.length).toBeGreaterThan(200);
    }
  });

  it('are plain data with a stable serialisation, in a file free of Node imports', async () => {
    expect(Object.keys(toolDefinitions)).toEqual([...workspaceToolNames]);
    expect(JSON.parse(JSON.stringify(toolDefinitions))).toEqual(toolDefinitions);
    const source = await fs.readFile(new URL('../../../src/shared/tools/tool-definitions.ts', import.meta.url), 'utf8');
    expect(source.match(/^import .*$/gm)).toEqual([
      "import type { ToolDefinition } from '../model/messages';",
      "import type { WorkspaceToolName } from '../policy/tool-classification';",
    ]);
  });

  it('name the read-only tools', () => {
    expect(readOnlyToolNames).toEqual(['Read', 'Glob', 'Grep', 'WebFetch', 'WebSearch', 'TodoWrite', 'TaskOutput']);
    expect(workspaceToolNames.filter(isReadOnlyTool)).toEqual(['Read', 'Glob', 'Grep']);
    expect(isReadOnlyTool('Bash')).toBe(false);
    expect(isReadOnlyTool('Agent')).toBe(false);
  });
});
