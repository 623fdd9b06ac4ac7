// The one rule for output tokens of a stream cut before its final usage (model server and billed-usage tracker).

/** The fields of a content_block_delta's `delta` the rule reads (the SDK's delta types fit it). */
export interface StreamedDelta {
  type: string;
  text?: unknown;
  partial_json?: unknown;
  thinking?: unknown;
}

const encoder = new TextEncoder();

/** ceil(UTF-8 bytes / 4) of a text, partial_json or thinking delta; 0 for any other delta (signature, citations). */
export function deltaOutputTokens(delta: StreamedDelta): number {
  const text =
    delta.type === 'text_delta'
      ? delta.text
      : delta.type === 'input_json_delta'
        ? delta.partial_json
        : delta.type === 'thinking_delta'
          ? delta.thinking
          : undefined;
  return typeof text === 'string' ? Math.ceil(encoder.encode(text).length / 4) : 0;
}
