/** Every tool this runtime has, in the order requests list them (the order is part of the cache prefix). */
export const runtimeToolNames = ['Agent', 'SendMessage', 'TaskStop', 'Bash', 'Glob', 'Grep', 'Read', 'Edit', 'Write'] as const;
export type RuntimeToolName = (typeof runtimeToolNames)[number];

/** Tools that cannot change anything. */
export const readOnlyTools: readonly string[] = ['Glob', 'Grep', 'Read'];

/** True for a name this runtime implements. */
export function isRuntimeTool(name: string): name is RuntimeToolName {
  return (runtimeToolNames as readonly string[]).includes(name);
}
