// The `demo --tour` model: a slow, live tree for `watch`, `steer`, `board` and `stop` to meet (docs/cli.md).
import type { Scenario, Turn } from './scenario-schema';

/** The tour's agent names (the model server tells its agents apart by them). */
export const tourNames = { root: 'tour-lead', worker: 'tour-worker' } as const;

/** The file the lead's Bash call writes in its workspace once approved. */
export const tourApprovedFile = 'tour-approved.txt';

/** The tasks the lead creates, in order (#1 is the worker's). */
export const tourTasks = ['Read the README', 'Map the control plane', 'Write the summary'] as const;

/** How the tour paces its worker: `steps` slow turns of `stepDelayMs` each (default 30 × 5 s: about two and a half minutes). */
export interface TourPace {
  steps?: number;
  stepDelayMs?: number;
}

/** The tour's scenario for the local model server. */
export function tourScenario(pace: TourPace = {}): Scenario {
  const steps = pace.steps ?? 30;
  const stepDelayMs = pace.stepDelayMs ?? 5_000;
  const slowSteps: Turn[] = Array.from({ length: steps }, (_, index) => ({
    text: `Working on #1, step ${index + 1} of ${steps}.`,
    toolUses: [{ name: 'TaskGet', input: { taskId: '1' } }],
    delayMs: stepDelayMs,
  }));
  return {
    agents: [
      {
        match: { agentName: tourNames.root },
        turns: [
          {
            text: 'Putting the work on the board.',
            toolUses: tourTasks.map((subject) => ({
              name: 'TaskCreate',
              input: { subject, description: `${subject}.` },
            })),
          },
          {
            text: 'Starting a worker in the background.',
            toolUses: [
              {
                name: 'Agent',
                input: {
                  description: 'work task #1',
                  prompt: 'Claim task #1 on the board and work it.',
                  name: tourNames.worker,
                  run_in_background: true,
                },
              },
            ],
          },
          {
            text: 'This command needs your approval.',
            toolUses: [
              {
                name: 'Bash',
                input: {
                  command: `echo "approved: this Bash call ran" | tee ${tourApprovedFile}`,
                  description: 'write the approval note',
                },
              },
            ],
          },
          { text: 'The approved command ran: {{last_tool_result}}. Waiting for the worker.' },
          // Each later turn answers a notice from the worker (done, or stopped).
          ...Array.from({ length: 4 }, (): Turn => ({ text: 'Noted.' })),
        ],
      },
      {
        match: { agentName: tourNames.worker },
        turns: [
          {
            text: 'Claiming task #1.',
            toolUses: [{ name: 'TaskUpdate', input: { taskId: '1', status: 'in_progress' } }],
          },
          ...slowSteps,
          { toolUses: [{ name: 'TaskUpdate', input: { taskId: '1', status: 'completed', note: 'done on the tour' } }] },
          { text: 'Task #1 is done.' },
        ],
      },
    ],
  };
}
