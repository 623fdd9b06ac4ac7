import { createHash } from 'node:crypto';

// A fixed namespace, so the same agent and index always give the same uuid (RFC 9562 version 5).
const transcriptNamespace = Buffer.from('4f0c2a8e9d5b4e6f8a1c3b7d2e9f0a61', 'hex');

/** The deterministic uuid of message `index` (or another named record) of an agent's transcript. */
export function transcriptUuid(agentId: string, index: number | string): string {
  const hash = createHash('sha1').update(transcriptNamespace).update(`${agentId}:${index}`, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
