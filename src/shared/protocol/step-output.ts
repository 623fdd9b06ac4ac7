import type { LiveDetails } from './live-activity';

/** Output so far of each running activity of a step, by id: the stall watchdog's view. */
export type StepOutput = Readonly<Record<string, number>>;

/** The output a live detail counts (stream events, output characters, files listed), never heartbeat time. */
export function outputAmount(details: LiveDetails): number | undefined {
  if (details.kind === 'model') return typeof details.events === 'number' ? details.events : details.textChars;
  return details.outputChars ?? details.filesListed;
}

/** The step's output from an agent's pending activities and their live details. */
export function stepOutputOf(activities: readonly { activityId: string; details?: LiveDetails }[]): StepOutput {
  const output: Record<string, number> = {};
  for (const activity of activities) {
    const amount = activity.details ? outputAmount(activity.details) : undefined;
    if (typeof amount === 'number' && Number.isFinite(amount)) output[activity.activityId] = amount;
  }
  return output;
}

/** Whether any activity's output moved since `before` (a new activity or attempt counts from nothing). */
export function outputMoved(before: StepOutput, now: StepOutput): boolean {
  return Object.entries(now).some(
    ([activityId, amount]) => amount !== (Object.hasOwn(before, activityId) ? before[activityId] : 0),
  );
}
