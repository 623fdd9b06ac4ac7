/** Path containment, shared by the workspace guard, the sandbox's mounts and worktree placement. */
import path from 'node:path';

/** True when `child` is `parent` or below it (both absolute, normalised). */
export function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}
