import type { ContentBlock, MessageParam } from './messages';

// Tokenizer-free estimates (JSON bytes / 4), deterministic for workflow code; corrected by reported usage.

/** Any character outside ASCII (a UTF-16 code unit above 0x7f). Not global: a test keeps no state in it. */
const beyondAscii = /[\u0080-\uffff]/;

/** UTF-8 length without TextEncoder (the sandbox may lack it); all-ASCII text is found by one native regex test. */
export function utf8Length(text: string): number {
  if (!beyondAscii.test(text)) return text.length;
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      bytes += 4;
      index += 1;
    } else bytes += 3;
  }
  return bytes;
}

/** Tokens of a text by the estimate. */
export function estimateTextTokens(text: string): number {
  return Math.ceil(utf8Length(text) / 4);
}

function blockTokens(block: ContentBlock): number {
  // cache_control is not part of the estimate (the request builder adds it).
  const { cache_control: _ignored, ...rest } = block as ContentBlock & { cache_control?: unknown };
  return estimateTextTokens(JSON.stringify(rest));
}

/** Tokens of one message. */
export function estimateMessageTokens(message: MessageParam): number {
  if (typeof message.content === 'string')
    return estimateTextTokens(JSON.stringify({ type: 'text', text: message.content }));
  return message.content.reduce((sum, block) => sum + blockTokens(block), 0);
}

/** Tokens of a conversation. */
export function estimateConversationTokens(messages: readonly MessageParam[]): number {
  return messages.reduce((sum, message) => sum + estimateMessageTokens(message), 0);
}

/** UTF-8 bytes of a value's JSON (what a payload carrying it weighs before the codec). */
export function jsonBytes(value: unknown): number {
  return utf8Length(JSON.stringify(value) ?? '');
}
