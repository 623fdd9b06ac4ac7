// Compaction instruction, summary extraction and records, shared by workflow, activity and transcript (docs/architecture.md).

/** Why a compaction happened: the context filled up (`auto`), or someone asked for it (`manual`: `subagents compact`). */
export type CompactionTrigger = 'auto' | 'manual';

/** What one compaction did, kept with the agent (status, transcript boundary records). */
export interface CompactionRecord {
  trigger: CompactionTrigger;
  /** Estimated tokens of the conversation (with system prompt and tools) before the compaction. */
  preTokens: number;
  /** Estimated tokens after it. */
  postTokens: number;
  /** Messages the summary replaced. */
  summarisedMessages: number;
  /** Recent messages kept verbatim after the summary. */
  keptMessages: number;
  /** The agent's turn when it happened. */
  turn: number;
  atMs: number;
  /** Set when no summary could be made (the model call failed) and old messages were dropped with a notice instead. */
  fallback?: string;
}

/** The purpose header value the model activity sends with a compaction request. */
export const compactionPurpose = 'compaction';

/** The compaction turn's instruction, appended as the last text block of the request. */
export function compactionInstruction(customInstructions?: string): string {
  const parts = [
    'Your task is to write a detailed summary of the conversation so far, so that the work can continue from the summary alone: ' +
      'the conversation above will be replaced by it. Pay close attention to what the user asked for and to what you have done.',
    'First think in <analysis> tags: go through the conversation in order and note each request and intent, your approach, key ' +
      'decisions, file names, code, function signatures and edits, errors and how they were fixed, and any feedback you were given.',
    'Then write the summary in <summary> tags with these sections:',
    '1. Primary Request and Intent: every explicit request and intent, in detail.',
    '2. Key Technical Concepts: the technologies, concepts and conventions that matter.',
    '3. Files and Code Sections: each file examined, changed or created, why it matters, and the important code verbatim.',
    '4. Errors and Fixes: what went wrong and how it was fixed.',
    '5. Problem Solving: what was solved and what is still being investigated.',
    '6. All User Messages: every message of the user (not tool results), close to verbatim.',
    '7. Pending Tasks: what you were asked to do and have not done yet.',
    '8. Current Work: precisely what you were doing right before this request, with file names and code.',
    '9. Next Step: the next step in line with the latest request, quoting the latest messages where it helps; none if the last task is done.',
  ];
  if (customInstructions?.trim()) parts.push(`Additional instructions:\n${customInstructions.trim()}`);
  parts.push(
    'IMPORTANT: Do NOT use any tools. Respond with text only: the <analysis> block, then the <summary> block.',
  );
  return parts.join('\n');
}

/** The summary in a compaction response: the `<summary>` block's content, else the text without its `<analysis>`. */
export function extractSummary(responseText: string): string {
  const summary = /<summary>([\s\S]*?)(?:<\/summary>|$)/.exec(responseText);
  const text = summary ? summary[1]! : responseText.replace(/<analysis>[\s\S]*?(?:<\/analysis>|$)/g, '');
  return text.replace(/\n{3,}/g, '\n\n').trim();
}

/** The text that opens a compacted conversation: what happened, the summary, and how to go on. */
export function compactedConversationText(summary: string, keptMessages: number): string {
  return [
    'This session is being continued from an earlier conversation that was compacted to fit the context window. ' +
      `The summary below replaces the earlier part of the conversation${keptMessages > 0 ? '; the most recent messages follow it verbatim' : ''}.`,
    '',
    summary,
    '',
    'Continue the work from where it left off without asking the user further questions.',
  ].join('\n');
}

/** What replaces the earlier conversation when no summary could be made: the run goes on without it. */
export function droppedConversationText(droppedMessages: number, reason: string): string {
  return (
    `[${droppedMessages} earlier messages of this conversation were removed to fit the context window; no summary could be made (${reason}). ` +
    'Ask for what you need again, or re-read the files you were working on.]'
  );
}
