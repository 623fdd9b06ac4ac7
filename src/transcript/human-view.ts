import type { ContentBlock, MessageParam } from '../shared/model/messages';
import { textOf } from '../shared/tools/tool-results';
import type { AgentTranscript } from './transcript-types';

const previewChars = 400;

function preview(text: string): string {
  return text.length > previewChars ? `${text.slice(0, previewChars)}… (${text.length} chars)` : text;
}

function blockLines(block: ContentBlock, toolNames: ReadonlyMap<string, string>): string[] {
  switch (block.type) {
    case 'text':
      return [block.text];
    case 'tool_use':
      return [`→ ${block.name} ${JSON.stringify(block.input)}  [${block.id}]`];
    case 'tool_result': {
      const content = typeof block.content === 'string' ? block.content : textOf(block.content);
      const name = toolNames.get(block.tool_use_id) ?? block.tool_use_id;
      return [`← ${name}${block.is_error ? ' (error)' : ''}: ${preview(content)}`];
    }
    case 'thinking':
      return [`(thinking) ${preview(block.thinking)}`];
    case 'image':
      return [`(image ${block.source.media_type}, ${block.source.data.length} base64 characters)`];
  }
}

function messageLines(message: MessageParam, timestampMs: number, toolNames: Map<string, string>): string[] {
  const lines = [`── ${message.role} · ${new Date(timestampMs).toISOString()}`];
  if (typeof message.content === 'string') return [...lines, message.content];
  for (const block of message.content) {
    if (block.type === 'tool_use') toolNames.set(block.id, block.name);
    lines.push(...blockLines(block, toolNames));
  }
  return lines;
}

/** The section heading of one agent: id, type, description, model, and its place in the tree. */
export function agentHeading(transcript: AgentTranscript): string {
  const { meta } = transcript;
  const indent = '  '.repeat(meta.depth);
  const description = meta.description ? ` · "${meta.description}"` : '';
  const place = meta.parentAgentId
    ? `child of ${meta.parentAgentId} (tool_use ${meta.parentToolUseId ?? '?'})`
    : 'root';
  const worktree = meta.worktree ? ` · worktree ${meta.worktree.path} (${meta.worktree.branch})` : '';
  const runs = transcript.runIds.length > 1 ? ` · ${transcript.runIds.length} runs` : '';
  const compacted = transcript.compactions.length > 0 ? ` · ${transcript.compactions.length} compaction(s)` : '';
  return [
    `${indent}═══ ${meta.agentId} · ${meta.agentType}${description}`,
    `${indent}    ${place} · depth ${meta.depth} · ${meta.model} · ${transcript.messages.length} messages${runs}${compacted}${worktree}`,
  ].join('\n');
}

/** The mark where an agent went back: the messages of the turn it went back to are shown once, above. */
function rewindLine({ turn, by }: { turn: number; by?: string }): string {
  return `── rewound to turn ${turn}${by ? ` by ${by}` : ''}: what follows goes on from the end of turn ${turn} above`;
}

/** A readable transcript of one agent (tool calls and results abbreviated), or of a tree, agent by agent. */
export function formatTranscripts(transcripts: readonly AgentTranscript[]): string {
  const sections = transcripts.map((transcript) => {
    const toolNames = new Map<string, string>();
    const compactions = new Map(transcript.compactions.map((compaction) => [compaction.summaryIndex, compaction]));
    const turnEnds = new Map<number, number[]>();
    for (const mark of transcript.turns ?? [])
      turnEnds.set(mark.afterIndex, [...(turnEnds.get(mark.afterIndex) ?? []), mark.turn]);
    const rewindsAfter = new Map<number, string[]>();
    for (const rewind of transcript.rewinds ?? [])
      rewindsAfter.set(rewind.afterIndex, [...(rewindsAfter.get(rewind.afterIndex) ?? []), rewindLine(rewind)]);
    const body = transcript.messages.flatMap(({ message, timestampMs }, index) => {
      const compaction = compactions.get(index);
      const heading = compaction
        ? [
            `══ conversation compacted (${compaction.record.trigger}, turn ${compaction.record.turn}): ${compaction.record.summarisedMessages} messages summarised, ` +
              `${compaction.record.keptMessages} kept; about ${compaction.record.preTokens} → ${compaction.record.postTokens} tokens` +
              (compaction.record.fallback ? ` (no summary: ${compaction.record.fallback})` : ''),
          ]
        : [];
      const ends = (turnEnds.get(index) ?? []).map(
        (turn) => `── end of turn ${turn} (subagents fork|rewind ${transcript.meta.agentId} --turn ${turn})`,
      );
      return [
        ...heading,
        ...messageLines(message, timestampMs, toolNames),
        ...ends,
        ...(rewindsAfter.get(index) ?? []),
      ];
    });
    return [agentHeading(transcript), '', ...(rewindsAfter.get(-1) ?? []), ...body].join('\n');
  });
  return sections.join('\n\n');
}
