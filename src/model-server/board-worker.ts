// A scripted board worker (docs/model-server.md, boardWorker), deciding from the conversation alone so retries agree.
import { substitutePlaceholders, toolResultText } from './conversation';
import type { RequestContext } from './request-types';
import { toolUseId } from './ids';
import type { ModelReply, OutputBlock } from './reply';
import type { BoardWorkerOptions } from './scenario-schema';
import { isRecord } from './tokens';

interface Call {
  name: string;
  input: Record<string, unknown>;
  result?: string;
  isError: boolean;
}

/** The tool calls of each assistant message, paired with their results. */
function turnsOfCalls(context: RequestContext): Call[][] {
  const results = new Map<string, { text: string; isError: boolean }>();
  for (const message of context.request.messages) {
    for (const block of message.content) {
      if (block.type === 'tool_result')
        results.set(String(block.tool_use_id), { text: toolResultText(block), isError: block.is_error === true });
    }
  }
  return context.request.messages
    .filter((message) => message.role === 'assistant')
    .map((message) =>
      message.content
        .filter((block) => block.type === 'tool_use')
        .map((block) => {
          const result = results.get(String(block.id));
          return {
            name: String(block.name),
            input: isRecord(block.input) ? block.input : {},
            result: result?.text,
            isError: result?.isError ?? false,
          };
        }),
    );
}

/** One line of a TaskList result: `#3 [pending] Subject (owner) [blocked by #1]`. */
interface ListedTask {
  id: string;
  status: string;
  claimable: boolean;
}

export function parseTaskList(text: string): ListedTask[] {
  return text.split('\n').flatMap((line) => {
    const match = /^#(\d+) \[(\w+)\] (.*)$/.exec(line.trim());
    if (!match) return [];
    const rest = match[3]!;
    const waits = /\[blocked by [^\]]*\]/.test(rest);
    const owned = /\([^()]*\)(?: \[blocked by [^\]]*\])?(?: — .*)?$/.test(rest);
    return [{ id: match[1]!, status: match[2]!, claimable: match[2] === 'pending' && !waits && !owned }];
  });
}

const isPoll = (calls: Call[]): boolean => calls.length === 1 && calls[0]?.name === 'TaskList';

/** Decides the worker's next step. */
export function boardWorkerStep(
  options: BoardWorkerOptions,
  context: RequestContext,
  agentKey: string,
): { reply: ModelReply; delayMs?: number } {
  const turns = turnsOfCalls(context);
  const last = turns.at(-1) ?? [];
  const lastCall = last.at(-1);
  const uses = (calls: Array<{ name: string; input: Record<string, unknown> }>, text: string): ModelReply => {
    const content: OutputBlock[] = [{ type: 'text', text }];
    for (const call of calls)
      content.push({
        type: 'tool_use',
        id: toolUseId(agentKey, context.turnIndex, content.length),
        name: call.name,
        input: call.input,
      });
    return { content, stopReason: 'tool_use' };
  };
  const list = { name: 'TaskList', input: {} };
  const claims = turns
    .flat()
    .filter((call) => call.name === 'TaskUpdate' && call.input.status === 'in_progress' && !call.isError);
  const completed = turns
    .flat()
    .filter((call) => call.name === 'TaskUpdate' && call.input.status === 'completed' && !call.isError);
  const current = String(claims.at(-1)?.input.taskId ?? '');

  if (!lastCall) return { reply: uses([list], 'Let me look at the task board.') };
  if (lastCall.name === 'TaskUpdate' && lastCall.input.status === 'in_progress') {
    if (lastCall.isError) return { reply: uses([list], 'Someone else has it; looking again.') };
    if (options.workCommand) {
      const command = substitutePlaceholders(options.workCommand.replaceAll('{{task}}', current), context);
      return {
        reply: uses(
          [{ name: 'Bash', input: { command, description: `work on task #${current}` } }],
          `Working on task #${current}.`,
        ),
      };
    }
  }
  if (lastCall.name === 'Bash' || (lastCall.name === 'TaskUpdate' && lastCall.input.status === 'in_progress')) {
    const complete = {
      name: 'TaskUpdate',
      input: { taskId: current, status: 'completed', note: `done by ${context.agentId ?? agentKey}` },
    };
    return { reply: uses([complete, list], `Task #${current} is done.`) };
  }
  const tasks = lastCall.name === 'TaskList' ? parseTaskList(lastCall.result ?? '') : [];
  const next = tasks.find((task) => task.claimable);
  if (next)
    return {
      reply: uses(
        [{ name: 'TaskUpdate', input: { taskId: next.id, status: 'in_progress' } }],
        `Claiming task #${next.id}.`,
      ),
    };
  let idlePolls = 0;
  while (idlePolls < turns.length && isPoll(turns[turns.length - 1 - idlePolls]!)) idlePolls += 1;
  const allDone = tasks.length > 0 && tasks.every((task) => task.status === 'completed');
  if (allDone || idlePolls >= (options.maxIdlePolls ?? 200)) {
    const mine = completed.map((call) => `#${String(call.input.taskId)}`);
    const text = `${allDone ? 'Every task on the board is completed.' : 'I stopped waiting for work.'} I completed: ${mine.join(', ') || 'none'}.`;
    return { reply: { content: [{ type: 'text', text }], stopReason: 'end_turn' } };
  }
  return { reply: uses([list], 'Nothing I can take yet; checking again.'), delayMs: options.pollDelayMs ?? 300 };
}
