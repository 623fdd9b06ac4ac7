/**
 * How many stack frames an error or promise made by workflow code records (docs/operations.md, "Worker
 * tuning"). The worker preloads this module once into its shared workflow context, before the SDK
 * freezes the context's globals (the bundler's `preloadModules`, src/worker/plugin.ts).
 *
 * The SDK captures a stack trace for every promise workflow code creates, for the `__stack_trace`
 * query (the Temporal UI's "Stack Trace" tab), and resolves each frame through the bundle's source
 * map: with Node's default of 10 frames this was a third of the workflow thread's time in
 * bench:overhead. Two of the frames are the SDK's own hook, so each pending promise still shows the
 * three innermost frames of the workflow code that made it, and an error thrown by workflow code its
 * five innermost frames. `SUBAGENTS_WORKFLOW_STACKS=full` (or the plugin's `workflowStacks: 'full'`)
 * leaves this module out and Node's default in place.
 */
export const workflowStackFrames = 5;

Error.stackTraceLimit = workflowStackFrames;
