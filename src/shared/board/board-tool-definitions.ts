import type { ToolDefinition } from '../model/messages';
import type { TaskBoardToolName } from '../policy/tool-classification';

// Task-list tool definitions named as Claude Code's so definitions work unchanged; extra fields are ours (docs/board.md).
const taskId = { type: 'string', description: 'The id of the task, e.g. "3"' };
const taskIds = (description: string) => ({ type: 'array', items: { type: 'string' }, description });

export const boardToolDefinitions: Record<TaskBoardToolName, ToolDefinition> = {
  TaskCreate: {
    name: 'TaskCreate',
    description:
      'Add a task to the task board your team shares. Give a short imperative subject and a description of what done means. The task starts pending and unowned; any agent of the team may claim it with TaskUpdate. Use blockedBy for tasks that must be completed before this one can start.',
    input_schema: {
      type: 'object',
      properties: {
        subject: { type: 'string', description: 'A short title, e.g. "Add the parser tests"' },
        description: { type: 'string', description: 'What needs to be done, and how to tell it is done' },
        activeForm: { type: 'string', description: 'Shown while in progress, e.g. "Adding the parser tests"' },
        metadata: { type: 'object', description: 'Optional data to keep with the task' },
        blockedBy: taskIds('Ids of tasks that must be completed before this one can be claimed'),
      },
      required: ['subject', 'description'],
      additionalProperties: false,
    },
  },
  TaskList: {
    name: 'TaskList',
    description:
      "List the tasks on your team's task board, one line each: id, status, subject, owner, and the open tasks it waits for. A task you may claim is pending, has no owner and waits for nothing; prefer the lowest id. Call it after finishing a task to find the next one.",
    input_schema: {
      type: 'object',
      properties: {
        status: {
          type: 'string',
          enum: ['pending', 'in_progress', 'blocked', 'completed'],
          description: 'Only tasks with this status',
        },
        owner: { type: 'string', description: 'Only tasks of this owner (an agent name or id)' },
      },
      additionalProperties: false,
    },
  },
  TaskGet: {
    name: 'TaskGet',
    description: 'Show one task of the board in full: description, status, owner, dependencies, note and timestamps.',
    input_schema: {
      type: 'object',
      properties: { taskId },
      required: ['taskId'],
      additionalProperties: false,
    },
  },
  TaskUpdate: {
    name: 'TaskUpdate',
    description:
      'Change a task on the board. To claim a task, set status "in_progress" (you become its owner; if another agent claimed it first you are told, so pick another). ' +
      'While you work on it the runtime keeps your claim alive; if you stop, it returns to the board. Set status "completed" with a short result in note when done, ' +
      '"pending" to give it back, "blocked" with the reason in note when you cannot go on, or "deleted" to remove it. owner assigns a pending task to an agent. ' +
      'addBlockedBy / addBlocks / removeBlockedBy change what it waits for (cycles are refused). Only the owner changes a task in progress.',
    input_schema: {
      type: 'object',
      properties: {
        taskId,
        subject: { type: 'string', description: 'New subject' },
        description: { type: 'string', description: 'New description' },
        activeForm: { type: 'string', description: 'New label shown while in progress' },
        status: {
          type: 'string',
          enum: ['pending', 'in_progress', 'completed', 'blocked', 'deleted'],
          description: 'New status',
        },
        owner: { type: 'string', description: 'Assign the task to this agent (name or id); "" unassigns it' },
        addBlocks: taskIds('Ids of tasks that cannot start before this one is completed'),
        addBlockedBy: taskIds('Ids of tasks that must be completed before this one'),
        removeBlockedBy: taskIds('Ids of tasks this one no longer waits for'),
        note: { type: 'string', description: 'Result note when completing, or why it is blocked' },
        metadata: { type: 'object', description: "Keys to merge into the task's metadata; a null value deletes a key" },
      },
      required: ['taskId'],
      additionalProperties: false,
    },
  },
};
