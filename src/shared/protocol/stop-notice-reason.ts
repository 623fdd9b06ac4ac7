import type { StopNotice } from './definitions';
import { stopNoticeMarks, stopNoticeSchema } from './input-schemas';

// Who stops an agent and why, written into the cancellation's reason (docs/architecture.md, "Abort domains...").

/** Prefix of a reason that carries a notice; the JSON notice follows it. */
export const cancelNoticePrefix = 'subagents-stop-notice:';

/** A notice saying who and why, with each mark that is set (a mark that is not set is left out). */
export function stopNotice(
  by: string,
  reason: string,
  marks: Pick<StopNotice, (typeof stopNoticeMarks)[number]> = {},
): StopNotice {
  const notice: StopNotice = { by, reason };
  for (const mark of stopNoticeMarks) if (marks[mark]) notice[mark] = true;
  return notice;
}

/** The reason a cancellation command carries for `notice`. */
export function reasonFor(notice: StopNotice): string {
  return `${cancelNoticePrefix}${JSON.stringify(stopNotice(notice.by, notice.reason, notice))}`;
}

/** The notice in a cancellation's reason, found anywhere since the server may wrap the reason in its own words. */
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
