import { describe, expect, it } from 'vitest';
import { useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { recordHistory } from '../helpers/histories';
import { agentNamed, agentPrompted, bash, spawnInBackground } from '../helpers/scripted-agents';
import { answeredRequestsOf, type ContentBlock, type RequestBody } from '../helpers/model-requests';

const env = useAgentTestEnv();

const requestsOf = (agentId: string) => answeredRequestsOf(env.modelServer, agentId);

/** The tool results of the last user message of a request. */
function results(body: RequestBody): ContentBlock[] {
  const last = body.messages[body.messages.length - 1]!;
  return typeof last.content === 'string' ? [] : last.content.filter((block) => block.type === 'tool_result');
}
const text = (block: ContentBlock | undefined): string =>
  typeof block?.content === 'string' ? block.content : JSON.stringify(block?.content ?? '');

describe('TaskOutput: a parent peeks at its children', () => {
  it('lists running children, shows a running child by query, waits for it, and shows a finished child', async () => {
    env.script(
      agentNamed('peeker', [
        {
          toolUses: [spawnInBackground('peek target', 'PEEK-CHILD', { name: 'peeky' })],
        },
        // The child's first tool call creates this file, so from here on it is running a tool with its first text recorded.
        { toolUses: [bash('until [ -f child-started ]; do sleep 0.1; done')] },
        {
          toolUses: [
            { name: 'TaskOutput', input: {} },
            { name: 'TaskOutput', input: { task_id: 'peeky', block: false } },
          ],
        },
        { toolUses: [bash('touch go')] },
        {
          toolUses: [
            { name: 'TaskOutput', input: { task_id: '{{agent_id}}.1', timeout: 120000 } },
            { name: 'TaskOutput', input: { task_id: 'nobody' } },
          ],
        },
        {
          toolUses: [
            { name: 'TaskOutput', input: { task_id: 'peeky', block: 'yes' } },
            { name: 'TaskOutput', input: {} },
            { name: 'TaskOutput', input: { task_id: 'peeky', block: false } },
          ],
        },
        { text: 'PEEKER-DONE' },
      ]),
      agentPrompted('PEEK-CHILD', [
        {
          text: 'CHILD-PROGRESS-NOTE',
          toolUses: [bash('touch child-started && until [ -f go ]; do sleep 0.1; done')],
        },
        { text: 'CHILD-FINAL-ANSWER' },
      ]),
    );
    const { handle, result } = await runCompleted(env, { prompt: 'peek at a child', name: 'peeker' });
    expect(result.finalText).toBe('PEEKER-DONE');
    const childId = `${handle.agentId}.1`;
    const requests = requestsOf(handle.agentId);
    expect(requests[0]!.tools!.map((tool) => tool.name)).toContain('TaskOutput');
    // A general-purpose child gets TaskOutput too (it comes with Agent), so its tool list equals its parent's.
    expect(requestsOf(childId)[0]!.tools!.map((tool) => tool.name)).toEqual(
      requests[0]!.tools!.map((tool) => tool.name),
    );

    const [listing, running] = results(requests[3]!);
    expect(text(listing)).toContain('1 running subagent(s)');
    expect(text(listing)).toContain(
      `<task_id>${childId}</task_id> (general-purpose, background, name peeky): peek target`,
    );
    expect(text(listing)).toContain('state: running Bash');
    expect(text(running)).toContain('<retrieval_status>not_ready</retrieval_status>');
    expect(text(running)).toContain('<status>running</status>');
    expect(text(running)).toContain('last tool: Bash');
    expect(text(running)).toContain('latest text:\nCHILD-PROGRESS-NOTE');
    expect(running!.is_error).toBeUndefined();

    const [waited, unknown] = results(requests[5]!);
    expect(text(waited)).toContain('<retrieval_status>success</retrieval_status>');
    expect(text(waited)).toContain('<status>completed</status>');
    expect(text(waited)).toContain('CHILD-FINAL-ANSWER');
    expect(unknown!.is_error).toBe(true);
    expect(text(unknown)).toContain(`No task "nobody" among your own subagents. Your subagents: ${childId}.`);

    const [badInput, emptyListing, finished] = results(requests[6]!);
    expect(badInput!.is_error).toBe(true);
    expect(text(badInput)).toContain('InvalidToolInput: TaskOutput: "block" must be a boolean');
    expect(text(emptyListing)).toBe('No running subagents.');
    // A finished child, without waiting: its final result at once.
    expect(text(finished)).toContain('<retrieval_status>success</retrieval_status>');
    expect(text(finished)).toContain('CHILD-FINAL-ANSWER');

    // Peeking is a query: nothing was recorded in the child's history for it (no signal, no update).
    const history = await env.temporal.client.workflow.getHandle(childId).fetchHistory();
    const received = (history.events ?? []).filter(
      (event) => event.workflowExecutionSignaledEventAttributes || event.workflowExecutionUpdateAcceptedEventAttributes,
    );
    expect(received).toHaveLength(0);
    await recordHistory(env.temporal.client, handle.agentId, 'long-runs-task-output');
  });
});
