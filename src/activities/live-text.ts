import type Anthropic from '@anthropic-ai/sdk';
import { liveLimits, type LiveModelDetails } from '../shared/protocol/live-activity';

/** The streamed text's tail and the tool being called, for watchers; bounded whatever the stream's length. */
export class LiveText {
  private tail = '';
  private chars = 0;
  private events = 0;
  private tool: string | undefined;

  constructor(private readonly turn: number) {}

  /** Takes one server-sent event of the stream. */
  onEvent(event: Anthropic.Messages.RawMessageStreamEvent): void {
    this.events += 1;
    if (event.type === 'content_block_start') {
      const block = event.content_block;
      this.tool = block.type === 'tool_use' || block.type === 'server_tool_use' ? block.name : undefined;
    } else if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
      this.chars += event.delta.text.length;
      this.tail += event.delta.text;
      // Trim in large steps so appending stays linear.
      if (this.tail.length > 2 * liveLimits.textTailChars) this.tail = this.tail.slice(-liveLimits.textTailChars);
    }
  }

  get details(): LiveModelDetails {
    return {
      kind: 'model',
      turn: this.turn,
      text: this.tail.slice(-liveLimits.textTailChars),
      textChars: this.chars,
      ...(this.tool ? { tool: this.tool } : {}),
      events: this.events,
    };
  }
}
