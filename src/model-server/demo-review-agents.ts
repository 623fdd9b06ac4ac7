/** The demo's answers to the agents a review script starts (examples/workflows/review.js): readers, checkers, synthesis. */
import { structuredOutputToolName } from '../shared/tools/structured-output';
import type { RequestContext } from './request-types';
import { clip, firstUserText, listedPaths, offeredTools, pastToolCalls, readInput } from './demo-history';
import { toolUseId } from './ids';
import type { ModelReply } from './reply';
import { valueFromSchema } from './schema-value';
import { isRecord } from './tokens';

/** The roles a review script's prompt gives an agent, told apart by the prompt's wording. */
export type ReviewRole =
  { kind: 'reader'; folder: string } | { kind: 'checker'; finding: string } | { kind: 'synthesis' };

const maxFindings = 3;
/** Past this turn a review agent answers with what it has: the demo always terminates. */
const maxReviewTurns = 6;
const sourceFile = /\.(ts|tsx|js|mjs|cjs|py|go|rs)$/;
const testFile = /\.(test|spec)\.[^/]+$|_test\.[^/]+$/;
const structuredOutputTool = structuredOutputToolName;

/** The review role a task prompt asks for, if any. */
export function reviewRole(prompt: string): ReviewRole | undefined {
  if (/\badversarial checker\b|\btry to refute\b/i.test(prompt)) {
    const finding = /^Finding:\s*(.+)$/m.exec(prompt)?.[1]?.trim();
    if (finding) return { kind: 'checker', finding };
  }
  if (/\bwrite a short (?:review )?report\b/i.test(prompt)) return { kind: 'synthesis' };
  const folder = /\breviewing the folder [`"']?([\w.@~+-][\w./@~+-]*?)\/?[`"']?(?:\s|$)/i.exec(prompt)?.[1];
  if (folder) return { kind: 'reader', folder };
  return undefined;
}

/** The review agent's next step from the conversation alone. */
export function reviewStep(role: ReviewRole, context: RequestContext, agentKey: string): ModelReply {
  switch (role.kind) {
    case 'reader':
      return readerStep(role.folder, context, agentKey);
    case 'checker':
      return checkerStep(role.finding, context, agentKey);
    case 'synthesis':
      return { content: [{ type: 'text', text: synthesisReport(firstUserText(context)) }], stopReason: 'end_turn' };
  }
}

const toolStep = (
  context: RequestContext,
  agentKey: string,
  text: string,
  name: string,
  input: Record<string, unknown>,
): ModelReply => ({
  content: [
    { type: 'text', text },
    { type: 'tool_use', id: toolUseId(agentKey, context.turnIndex, 1), name, input },
  ],
  stopReason: 'tool_use',
});
const textAnswer = (text: string): ModelReply => ({ content: [{ type: 'text', text }], stopReason: 'end_turn' });

/** A reader lists its folder, then reports source files that have no test file named after them in that folder. */
function readerStep(folder: string, context: RequestContext, agentKey: string): ModelReply {
  const listing = pastToolCalls(context).find((call) => call.name === 'Glob');
  if (!listing && context.turnIndex < maxReviewTurns && offeredTools(context).has('Glob'))
    return toolStep(context, agentKey, `Listing ${folder}/.`, 'Glob', { pattern: `${folder}/**/*` });
  if (!listing) return textAnswer(`No findings: I have no tool to list ${folder}/.`);
  return textAnswer(readerFindings(folder, listedPaths(listing.result)));
}

/** The reader's answer from its folder's listing: a count, then up to three `- ` finding lines. */
export function readerFindings(folder: string, paths: readonly string[]): string {
  const files = [...paths].sort();
  const stems = new Set(files.filter((path) => testFile.test(path)).map((path) => stemOf(path)));
  const untested = files.filter((path) => sourceFile.test(path) && !testFile.test(path) && !path.endsWith('.d.ts'));
  const findings = untested.filter((path) => !stems.has(stemOf(path))).slice(0, maxFindings);
  if (findings.length === 0) return `${folder}/ has ${files.length} file(s). No findings.`;
  return [
    `${folder}/ has ${files.length} file(s); ${untested.length} source file(s), ${findings.length} worth a second look:`,
    ...findings.map((path) => `- ${path} has no test file named after it in ${folder}/.`),
  ].join('\n');
}

/** `src/a/agent-loop.ts` → `agent-loop`; `test/agent-loop.test.ts` → `agent-loop`. */
const stemOf = (path: string): string => (path.split('/').pop() ?? path).replace(testFile, '').replace(/\.[^.]+$/, '');

/** A checker looks for the evidence that would refute its finding, then answers with a verdict. */
function checkerStep(finding: string, context: RequestContext, agentKey: string): ModelReply {
  const tools = offeredTools(context);
  const calls = pastToolCalls(context);
  const file = /(?:^|\s)([\w.@~+-]+(?:\/[\w.@~+-]+)+\.[\w-]+)/.exec(finding)?.[1];
  const untestedClaim = file !== undefined && /\bno test\b/i.test(finding);
  const evidence = calls.find((call) => call.name === (untestedClaim ? 'Glob' : 'Read'));
  if (!evidence && file && context.turnIndex < maxReviewTurns) {
    if (untestedClaim && tools.has('Glob'))
      return toolStep(context, agentKey, 'Looking for a test anywhere in the repository.', 'Glob', {
        pattern: `**/${stemOf(file)}.test.*`,
      });
    if (!untestedClaim && tools.has('Read'))
      return toolStep(context, agentKey, `Reading ${file}.`, 'Read', readInput(tools.get('Read'), file, 20));
  }
  const verdict = checkerVerdict(finding, file, untestedClaim, evidence?.result);
  return answerWithObject(context, agentKey, { finding, ...verdict });
}

/** The verdict on a finding from what the checker's tool found (or did not). */
export function checkerVerdict(
  finding: string,
  file: string | undefined,
  untestedClaim: boolean,
  evidence: string | undefined,
): { verdict: 'confirmed' | 'refuted'; reason: string } {
  if (!file) return { verdict: 'refuted', reason: 'The finding names no file, so nothing supports it.' };
  if (evidence === undefined)
    return { verdict: 'refuted', reason: `I had no tool to check ${file}, so it stays unproven.` };
  if (untestedClaim) {
    const tests = listedPaths(evidence);
    return tests.length > 0
      ? { verdict: 'refuted', reason: `A test exists elsewhere: ${tests.slice(0, 2).join(', ')}.` }
      : { verdict: 'confirmed', reason: `No file named ${stemOf(file)}.test.* exists anywhere in the repository.` };
  }
  return /does not exist|not found|no such file/i.test(evidence)
    ? { verdict: 'refuted', reason: `${file} does not exist.` }
    : { verdict: 'confirmed', reason: `${file} exists and I read it; nothing contradicts "${clip(finding, 80)}".` };
}

/**
 * The checker's answer: through the StructuredOutput tool when offered (its input_schema is the schema), once;
 * else as plain JSON text.
 */
function answerWithObject(context: RequestContext, agentKey: string, answer: Record<string, unknown>): ModelReply {
  const structured = context.request.tools.find((tool) => tool.name === structuredOutputTool);
  if (!structured || context.request.toolChoice?.type === 'none') return textAnswer(JSON.stringify(answer));
  const accepted = pastToolCalls(context).some(
    (call) => call.name === structuredOutputTool && call.result !== undefined && !call.isError,
  );
  if (accepted || context.turnIndex >= maxReviewTurns) return textAnswer(`Verdict: ${String(answer.verdict)}.`);
  return toolStep(
    context,
    agentKey,
    `Verdict: ${String(answer.verdict)}.`,
    structuredOutputTool,
    asObject(valueFromSchema(structured.input_schema, answer)),
  );
}

const asObject = (value: unknown): Record<string, unknown> => (isRecord(value) ? value : { value });

/** The synthesis agent's report: the prompt's `- ` finding lines grouped by the folder of the file each names. */
export function synthesisReport(prompt: string): string {
  // The opening context (agent roster, saved scripts) comes in the same message: its bullets are not findings.
  const findings = prompt
    .replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '')
    .split('\n')
    .filter((line) => line.startsWith('- '))
    .map((line) => line.slice(2).trim());
  if (findings.length === 0) return 'Review report: no finding was confirmed, so there is nothing to fix.';
  const byFolder = new Map<string, string[]>();
  for (const finding of findings) {
    const folder = /(?:^|\s)([\w.@~+-]+)\//.exec(finding)?.[1] ?? '(other)';
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), finding]);
  }
  const lines = [`Review report: ${findings.length} confirmed finding(s) in ${byFolder.size} folder(s).`];
  for (const [folder, items] of [...byFolder].sort(([left], [right]) => left.localeCompare(right)))
    lines.push('', `${folder}/`, ...items.map((item) => `- ${clip(item, 200)}`));
  return lines.join('\n');
}
