import { Context } from '@temporalio/activity';
import { toolLimits } from '../shared/tools/tool-definitions';

type ActivityFunction = (...args: never[]) => Promise<unknown>;

/**
 * Wraps an activity so it heartbeats every second while it runs. Setup activities (prompt
 * rendering, definitions, worktrees, reading another agent's state) are short but may wait on git
 * or the server: with heartbeats their heartbeat timeout (src/workflows/runtime/activity-proxies.ts) can be
 * seconds, so an attempt lost with a crashed worker is retried after seconds, not after its whole
 * start-to-close timeout. Outside an activity (direct calls in tests) it just runs the function.
 */
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
