/** One short line describing a tool call, for activity summaries in the Temporal UI and progress output. */
export function toolCallSummary(name: string, input: Record<string, unknown>): string {
  const text = (key: string): string | undefined =>
    typeof input[key] === 'string' ? (input[key] as string) : undefined;
  const detail =
    name === 'Bash'
      ? (text('description') ?? text('command'))
      : name === 'Agent'
        ? `${text('subagent_type') ?? 'general-purpose'}: ${text('description') ?? ''}`
        : (text('file_path') ?? text('pattern') ?? text('path'));
  const line = detail ? `${name} ${name === 'Agent' ? '→ ' : ''}${detail}` : name;
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}
