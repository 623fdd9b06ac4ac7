import { Context } from '@temporalio/activity';
import { toolLimits } from '../shared/tools/tool-definitions';

type ActivityFunction = (...args: never[]) => Promise<unknown>;

/** Heartbeats every second, so a setup attempt lost with its worker retries after seconds, not its whole timeout. */
export function heartbeating<Fn extends ActivityFunction>(activity: Fn): Fn {
  return (async (...args: Parameters<Fn>) => {
    let context: Context | undefined;
    try {
      context = Context.current();
    } catch {
      return activity(...args);
    }
    // A local activity has no heartbeat: it lives inside its workflow task.
    if (context.info.isLocal) return activity(...args);
    const timer = setInterval(() => context.heartbeat(), toolLimits.heartbeatIntervalMs);
    try {
      return await activity(...args);
    } finally {
      clearInterval(timer);
    }
  }) as Fn;
}

/** Every function of an activity group, wrapped with {@link heartbeating}. */
export function allHeartbeating<Group extends Record<string, ActivityFunction>>(group: Group): Group {
  return Object.fromEntries(Object.entries(group).map(([name, activity]) => [name, heartbeating(activity)])) as Group;
}
