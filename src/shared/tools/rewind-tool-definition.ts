import type { ToolDefinition } from '../model/messages';

/** The Rewind tool (docs/rewind.md): off by default, given only to agents whose `tools` name it. */
export const rewindToolDefinition: ToolDefinition = {
  name: 'Rewind',
  description: [
    'Go back to an earlier point of your own conversation and continue from there with a note to yourself,',
    'dropping everything after it (use it when an approach failed and its turns only clutter your context).',
    'Turns are counted by your responses: turn 0 is your start, before your first response; turn k is just after',
    'the tool results of your k-th response. Subagents you started after that turn are stopped. With files: true,',
    'the files return to how they were at that turn (refused if someone else changed them since).',
    "The rewind happens once this response's tools have run; the note is what you will see after the turn.",
  ].join(' '),
  input_schema: {
    type: 'object',
    properties: {
      turn: { type: 'integer', minimum: 0, description: 'The turn to go back to (0 = your start)' },
      note: {
        type: 'string',
        description: 'What to remember from the dropped turns and what to do next; you see only this afterwards',
      },
      files: { type: 'boolean', description: 'Also return the files to that turn (default false)' },
    },
    required: ['turn', 'note'],
    additionalProperties: false,
  },
};
