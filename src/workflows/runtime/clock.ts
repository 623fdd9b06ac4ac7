/**
 * Workflow time in ms: the sandbox's Date reads the workflow task's time. Right after a local activity that outlived
 * its task, a replay may read a later time than the live run did (tens of ms, seen under load), so a value read there
 * is for display, and a decision taken on it must tolerate that.
 */
export function workflowNowMs(): number {
  return new Date().getTime();
}
