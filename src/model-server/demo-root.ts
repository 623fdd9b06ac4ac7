/** The demo's root agent: list files, delegate to two Explore agents, read the README, summarise. */
import type { RequestContext } from './request-types';
import {
  clip,
  fileLines,
  firstHeading,
  listedPaths,
  offeredTools,
  pastToolCalls,
  readInput,
  type PastToolCall,
} from './demo-history';
import { toolUseId } from './ids';
import type { ModelReply, OutputBlock } from './reply';

const markdownGlob = '**/*.md';
const sourceGlob = 'src/**/*.ts';
/** Past this turn the root answers whatever it has: the demo always terminates. */
const maxRootTurns = 8;

/** The two tasks the root hands to Explore agents. */
export const exploreTasks = [
  {
    description: 'Find the Temporal workflows',
    prompt: 'Find where the Temporal workflows are defined and summarise them',
  },
  { description: 'Find the CLI commands', prompt: 'Find the CLI commands' },
] as const;

const globResult = (calls: PastToolCall[], pattern: string): string[] | undefined => {
  const call = calls.find((candidate) => candidate.name === 'Glob' && candidate.input.pattern === pattern);
  return call ? listedPaths(call.result) : undefined;
};

/** The top-most README.md the Glob found. */
function findReadme(markdown: string[] | undefined): string | undefined {
  const depth = (path: string): number => path.split('/').length;
  return (markdown ?? [])
    .filter((path) => /(^|\/)readme\.md$/i.test(path))
    .sort((left, right) => depth(left) - depth(right) || left.length - right.length)[0];
}

const readPathOf = (call: PastToolCall): unknown => call.input.file_path ?? call.input.path;

function describeFiles(label: string, paths: string[] | undefined): string {
  if (paths === undefined) return `- ${label}: not listed.`;
  const examples = paths.slice(0, 5).join(', ');
  return `- ${label}: ${paths.length}${paths.length > 0 ? ` (${examples}${paths.length > 5 ? ', …' : ''})` : ''}.`;
}

function finalAnswer(calls: PastToolCall[], readme: string | undefined): ModelReply {
  const lines = ['Here is what I found in this directory.'];
  lines.push(describeFiles('Markdown files', globResult(calls, markdownGlob)));
  lines.push(describeFiles('TypeScript files under src/', globResult(calls, sourceGlob)));
  const readmeCall = calls.find((call) => call.name === 'Read' && readPathOf(call) === readme);
  if (readme && readmeCall?.result !== undefined) {
    const heading = firstHeading(fileLines(readmeCall.result));
    lines.push(heading ? `- ${readme} starts with the heading "${heading}".` : `- ${readme} has no Markdown heading.`);
  }
  const delegated = calls.filter((call) => call.name === 'Agent');
  if (delegated.length > 0) {
    lines.push('- Findings of the Explore agents:');
    for (const call of delegated) {
      const finding = call.result === undefined ? '(no result)' : clip(call.result.replace(/\s+/g, ' ').trim(), 400);
      lines.push(`  - ${String(call.input.description ?? 'task')}: ${finding}`);
    }
  }
  return { content: [{ type: 'text', text: lines.join('\n') }], stopReason: 'end_turn' };
}

/** Decides the root's next step from the conversation alone. */
export function rootStep(context: RequestContext, agentKey: string): ModelReply {
  const tools = offeredTools(context);
  const calls = pastToolCalls(context);
  const readme = findReadme(globResult(calls, markdownGlob));
  const step = (text: string, uses: Array<{ name: string; input: Record<string, unknown> }>): ModelReply => {
    const content: OutputBlock[] = [{ type: 'text', text }];
    for (const use of uses) {
      content.push({ type: 'tool_use', id: toolUseId(agentKey, context.turnIndex, content.length), ...use });
    }
    return { content, stopReason: 'tool_use' };
  };
  if (context.turnIndex >= maxRootTurns) return finalAnswer(calls, readme);

  if (tools.has('Glob') && !calls.some((call) => call.name === 'Glob')) {
    return step('I will start by listing the Markdown and TypeScript files.', [
      { name: 'Glob', input: { pattern: markdownGlob } },
      { name: 'Glob', input: { pattern: sourceGlob } },
    ]);
  }
  const agentSchema = tools.get('Agent');
  if (agentSchema && context.agentType !== 'Explore' && !calls.some((call) => call.name === 'Agent')) {
    const withType = agentSchema.size === 0 || agentSchema.has('subagent_type');
    return step(
      'I will ask two Explore agents to look deeper in parallel.',
      exploreTasks.map((task) => ({
        name: 'Agent',
        input: {
          description: task.description,
          prompt: task.prompt,
          ...(withType ? { subagent_type: 'Explore' } : {}),
        },
      })),
    );
  }
  if (readme && tools.has('Read') && !calls.some((call) => call.name === 'Read' && readPathOf(call) === readme)) {
    return step(`Now I will read ${readme}.`, [{ name: 'Read', input: readInput(tools.get('Read'), readme, 40) }]);
  }
  return finalAnswer(calls, readme);
}
