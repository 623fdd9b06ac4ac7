/** Workflow time in ms. Temporal's sandbox replaces Date with the workflow task's time, so this is replay-safe. */
export function workflowNowMs(): number {
  return new Date().getTime();
}
