import type { StopNotice } from './definitions';
import { stopNoticeMarks, stopNoticeSchema } from './input-schemas';

// A stop notice written into a cancellation request's reason (docs/architecture.md, "Abort domains and the
// control plane"): who stops an agent and why, on the one request that stops it. Agents write it on the
// cancellations of the agents they stop (src/workflows/runtime/cancel-notice.ts), the client on the cancellation of
// the agent it stops (src/client/client.ts), an operator's script may too; the stopped agent reads it back.

/** Prefix of a reason that carries a notice; the JSON notice follows it. */
export const cancelNoticePrefix = 'subagents-stop-notice:';

/** A notice saying who and why, with each mark that is set (a mark that is not set is left out). */
export function stopNotice(by: string, reason: string, marks: Pick<StopNotice, (typeof stopNoticeMarks)[number]> = {}): StopNotice {
  const notice: StopNotice = { by, reason };
  for (const mark of stopNoticeMarks) if (marks[mark]) notice[mark] = true;
  return notice;
}

/** The reason a cancellation command carries for `notice`. */
export function reasonFor(notice: StopNotice): string {
  return `${cancelNoticePrefix}${JSON.stringify(stopNotice(notice.by, notice.reason, notice))}`;
}

/**
 * The notice a cancellation's reason carries: the server may wrap the reason in words of its own (an
 * external cancellation's cause reads "Cancel requested by workflow … with reason: <reason>"), so the
 * prefix is looked for anywhere. Anything that is not a well-formed notice is no notice.
 */
export function noticeIn(reason: string | null | undefined): StopNotice | undefined {
  const at = reason?.indexOf(cancelNoticePrefix) ?? -1;
  if (at < 0) return undefined;
  try {
    const parsed = stopNoticeSchema.safeParse(JSON.parse(reason!.slice(at + cancelNoticePrefix.length)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

