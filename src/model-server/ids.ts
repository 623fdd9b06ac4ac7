/** Identifiers in the API's formats: random for messages and requests, deterministic for tool uses. */
import { createHash, randomBytes } from 'node:crypto';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(bytes: Uint8Array, length: number): string {
  let text = '';
  for (let index = 0; index < length; index++) text += alphabet[(bytes[index % bytes.length] ?? 0) % 62];
  return text;
}

/** `req_011C…`, the `request-id` header and the `request_id` of error bodies. */
export const newRequestId = (): string => `req_011C${base62(randomBytes(24), 22)}`;

/** `msg_01…` */
export const newMessageId = (): string => `msg_01${base62(randomBytes(24), 22)}`;

/** `toolu_01…` derived from (agent key, turn index, block index), so a retried request gets the same ids. */
export function toolUseId(agentKey: string, turnIndex: number, blockIndex: number): string {
  const digest = createHash('sha256').update(`${agentKey}\u0000${turnIndex}\u0000${blockIndex}`).digest();
  return `toolu_01${base62(digest, 22)}`;
}

/** `srvtoolu_01…` for a server tool use (web search), deterministic like {@link toolUseId}. */
export function serverToolUseId(agentKey: string, turnIndex: number, blockIndex: number): string {
  return `srv${toolUseId(agentKey, turnIndex, blockIndex)}`;
}

/** A stable opaque signature for a thinking block's text. */
export function thinkingSignature(thinking: string): string {
  return createHash('sha256').update(`thinking\u0000${thinking}`).digest('base64');
}
