// npm run bench:delegation — what delegating an exploration costs the parent's context: the tokens its next
// request grows by through the child's tool_result, against the tokens the child read.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RecordedRequest } from '../src/model-server/server';
import { estimateTextTokens } from '../src/shared/model/context-estimate';
import type { ContentBlock, MessageParam } from '../src/shared/model/messages';
import { createBenchEnv } from './helpers/bench-env';
import { requestsByAgent } from './helpers/model-log';
import { withTimeout } from './helpers/wait';

const files = 5;
const linesPerFile = 400;
const model = 'claude-test-tiny';
/** What the child answers: a short finding, as an exploration's answer should be (~30 tokens). */
const childAnswer =
  'The retry policy is set in m17.ts (retryPolicy, line 120) and read only by helper h3; nothing else overrides it.';
const childTypes = ['general-purpose', 'Explore'] as const;
type ChildType = (typeof childTypes)[number];

const fileName = (index: number) => `module-${index}.ts`;
const fileText = (index: number) =>
  Array.from(
    { length: linesPerFile },
    (_, line) =>
      `export const m${index}_${line} = helper${line % 11}({ retry: ${line % 5}, label: 'module ${index} line ${line}' });`,
  ).join('\n');

const env = await createBenchEnv({
  kind: 'scripted',
  scenario: {
    agents: childTypes.flatMap((type) => [
      {
        match: { agentName: `delegation-${type}` },
        turns: [
          {
            toolUses: [
              {
                name: 'Agent',
                input: {
                  description: 'find the retry policy',
                  prompt: `Explore (${type}): read every module and say where the retry policy is set.`,
                  subagent_type: type,
                },
              },
            ],
          },
          { text: 'Noted.' },
        ],
      },
      {
        match: { userIncludes: `Explore (${type}):` },
        turns: [
          {
            toolUses: Array.from({ length: files }, (_, index) => ({
              name: 'Read',
              input: { file_path: fileName(index) },
            })),
          },
          { text: childAnswer },
        ],
      },
    ]),
  },
});

type Block = ContentBlock & { content?: unknown };
const bodyOf = (request: RecordedRequest) => JSON.parse(request.rawBody) as { messages: MessageParam[] };
const blocksOf = (message: MessageParam | undefined): Block[] =>
  message && typeof message.content !== 'string' ? (message.content as Block[]) : [];
/** The runtime's token estimate of a block (src/shared/model/context-estimate.ts): its JSON without cache_control. */
const blockTokens = (block: Block) => {
  const { cache_control: _ignored, ...rest } = block as Block & { cache_control?: unknown };
  return estimateTextTokens(JSON.stringify(rest));
};
const promptTokens = (request: RecordedRequest) => {
  const usage = request.usage;
  if (!usage) throw new Error(`request ${request.seq} has no usage`);
  return usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens;
};
const resultText = (block: Block): string => {
  if (typeof block.content === 'string') return block.content;
  if (Array.isArray(block.content))
    return (block.content as { text?: string }[]).map((part) => part.text ?? '').join('');
  return '';
};

interface Delegation {
  type: ChildType;
  childReadTokens: number;
  /** Prompt tokens of the parent's next request minus its previous one (the server's usage), minus the parent's own tool_use message: the tool_result. */
  parentGrowthTokens: number;
  answerTokens: number;
  /** Everything of the growth that is not the child's answer: our text around it plus the block's JSON framing. */
  wrapperTokens: number;
  /** Our text around the answer in the tool_result (agentId line, usage tag, ...). */
  ourWrapperTokens: number;
  /** The tool_result block's JSON (type, tool_use_id, content key): the API's, not ours. */
  framingTokens: number;
  wrapper: string;
  ratio: number;
}

async function delegate(type: ChildType): Promise<Delegation> {
  const handle = await env.client.startAgent({
    prompt: 'delegation benchmark',
    name: `delegation-${type}`,
    cwd: env.workspace,
    model,
    permissionMode: 'bypassPermissions',
  });
  const result = await withTimeout(handle.result(), 180_000, `the ${type} delegation to finish`);
  if (result.status !== 'completed')
    throw new Error(`root ended ${result.status}: ${result.error ?? result.finalText}`);
  const byAgent = requestsByAgent(env.modelServer);
  const parent = byAgent.get(handle.agentId) ?? [];
  const child = byAgent.get(`${handle.agentId}.1`) ?? [];
  if (parent.length < 2 || child.length < 2)
    throw new Error(`expected 2 parent and 2 child requests, got ${parent.length} and ${child.length}`);

  const childLast = bodyOf(child[child.length - 1]!).messages;
  const reads = childLast.flatMap((message) => blocksOf(message)).filter((block) => block.type === 'tool_result');
  const childReadTokens = reads.reduce((sum, block) => sum + estimateTextTokens(resultText(block)), 0);

  const next = bodyOf(parent[1]!).messages;
  const resultBlock = blocksOf(next[next.length - 1]).find((block) => block.type === 'tool_result');
  if (!resultBlock) throw new Error("the parent's second request carries no tool_result");
  const text = resultText(resultBlock);
  if (!text.includes(childAnswer))
    throw new Error(`the child's answer is missing from the parent's tool_result: ${text}`);
  const wrapper = text.replace(childAnswer, '');
  const textTokens = estimateTextTokens(text);
  const answerTokens = estimateTextTokens(childAnswer);
  const ownAssistant = blocksOf(next[next.length - 2]).reduce((sum, block) => sum + blockTokens(block), 0);
  const parentGrowthTokens = promptTokens(parent[1]!) - promptTokens(parent[0]!) - ownAssistant;
  return {
    type,
    childReadTokens,
    parentGrowthTokens,
    answerTokens,
    wrapperTokens: parentGrowthTokens - answerTokens,
    ourWrapperTokens: textTokens - answerTokens,
    framingTokens: blockTokens(resultBlock) - textTokens,
    wrapper,
    ratio: parentGrowthTokens / childReadTokens,
  };
}

try {
  for (let index = 0; index < files; index++) writeFileSync(path.join(env.workspace, fileName(index)), fileText(index));
  const runs: Delegation[] = [];
  for (const type of childTypes) runs.push(await delegate(type));

  const percent = (ratio: number) => `${(ratio * 100).toFixed(3)} %`;
  console.log(
    `delegation benchmark: a child reads ${files} files and answers in ${estimateTextTokens(childAnswer)} tokens; tokens by the runtime's estimate (UTF-8 bytes / 4)`,
  );
  console.log(
    `${'child type'.padEnd(16)}${['child read', 'parent grew', 'answer', 'wrapper', 'ours', 'framing', 'ratio'].map((label) => label.padStart(13)).join('')}`,
  );
  for (const run of runs) {
    const cells = [
      run.childReadTokens,
      run.parentGrowthTokens,
      run.answerTokens,
      run.wrapperTokens,
      run.ourWrapperTokens,
      run.framingTokens,
      percent(run.ratio),
    ];
    console.log(`${run.type.padEnd(16)}${cells.map((value) => String(value).padStart(13)).join('')}`);
  }
  console.log(
    "parent grew = the server's prompt tokens of the parent's next request minus its previous one, minus the parent's own tool_use message",
  );
  console.log(
    "wrapper = parent grew - answer = ours (our text around the answer) + framing (the tool_result JSON: type, tool_use_id; the API's)",
  );
  for (const run of runs) console.log(`our wrapper (${run.type}): ${JSON.stringify(run.wrapper)}`);
  const summary = (run: Delegation) => ({
    childReadTokens: run.childReadTokens,
    parentGrowthTokens: run.parentGrowthTokens,
    wrapperTokens: run.wrapperTokens,
    ratio: Number(run.ratio.toFixed(5)),
    answerTokens: run.answerTokens,
    ourWrapperTokens: run.ourWrapperTokens,
    framingTokens: run.framingTokens,
  });
  const [main, explore] = runs;
  console.log(JSON.stringify({ ...summary(main!), childType: main!.type, explore: summary(explore!) }));
} catch (error) {
  console.error(`bench:delegation did not complete: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await env.close();
}
