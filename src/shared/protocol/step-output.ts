import type { LiveDetails } from './live-activity';

/**
 * How much output each running activity of an agent's step has produced, by activity id (the stall
 * watchdog's view of a step, src/activities/step-progress.ts). Only activities whose live details
 * measure output appear: a model call, Bash, Glob and Grep.
 */
export type StepOutput = Readonly<Record<string, number>>;

/**
 * The output a live detail counts, or undefined when it measures none. A model call counts its stream's
 * events (the Anthropic SDK drops keep-alive pings before they reach it, so every event is output: text,
 * thinking, tool input); Bash its output characters; Glob and Grep the files listed. Never the heartbeat's
 * time: Bash heartbeats every second whether or not its command prints anything.
 */
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

/**
 * Whether any running activity's output moved since the `before` look. An activity not seen before
 * started from nothing, so any output of it is new; a new attempt starting again from nothing moves too.
 */
export function outputMoved(before: StepOutput, now: StepOutput): boolean {
  return Object.entries(now).some(([activityId, amount]) => amount !== (Object.hasOwn(before, activityId) ? before[activityId] : 0));
}
