/**
 * The headers naming the calling agent on each model request (the local model server and proxies tell agents apart by
 * them). HTTP header values are bytes, so a name in any language is percent-encoded (RFC 8187's choice of encoding).
 */
export const agentHeaderNames = {
  id: 'x-subagents-agent-id',
  type: 'x-subagents-agent-type',
  name: 'x-subagents-agent-name',
  /** `compaction` on a request that asks for a summary of the conversation. */
  purpose: 'x-subagents-purpose',
} as const;

/** Printable ASCII without `%` goes as it is (ids and most names); anything else is percent-encoded as UTF-8. */
export function encodeHeaderValue(value: string): string {
  return /^[\x20-\x24\x26-\x7e]*$/.test(value) ? value : encodeURIComponent(value);
}

/** The value `encodeHeaderValue` encoded; a value that is not valid percent-encoding is returned as received. */
export function decodeHeaderValue(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The agent headers of a model request, each encoded. */
export function agentHeaders(agent: { id: string; type?: string; name?: string }): Record<string, string> {
  return {
    [agentHeaderNames.id]: encodeHeaderValue(agent.id),
    ...(agent.type !== undefined ? { [agentHeaderNames.type]: encodeHeaderValue(agent.type) } : {}),
    ...(agent.name ? { [agentHeaderNames.name]: encodeHeaderValue(agent.name) } : {}),
  };
}
