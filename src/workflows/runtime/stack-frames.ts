/** Stack frames an error or promise of workflow code records; preloaded (docs/operations.md, "Worker tuning"). */
export const workflowStackFrames = 5;

Error.stackTraceLimit = workflowStackFrames;
