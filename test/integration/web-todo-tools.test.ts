import { describe, expect, it } from 'vitest';
import { requestBodies, useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { localSiteWeb, useLocalSite } from '../helpers/local-site';
import { agentOfType, agentPrompted } from '../helpers/scripted-agents';

const site = useLocalSite(
  '<html><head><title>Changelog</title></head><body><p>Release 7 ships MCP support.</p></body></html>',
);
// WebFetch may reach this machine's test server only because the worker is configured to allow it.
const env = useAgentTestEnv({ kind: 'echo' }, localSiteWeb());

type Block = { type: string; content?: unknown; is_error?: boolean; name?: string };
const blocks = (content: unknown): Block[] => (Array.isArray(content) ? (content as Block[]) : []);

describe('WebFetch, WebSearch and TodoWrite in the agent loop', () => {
  it("keeps the todo list in workflow state, fetches and searches through the real SDK, and counts the tools' usage", async () => {
    const todo = (status: [string, string]) => ({
      todos: [
        { content: 'Read the changelog', activeForm: 'Reading the changelog', status: status[0] },
        { content: 'Search the docs', activeForm: 'Searching the docs', status: status[1] },
      ],
    });
    env.modelServer.clearRequests();
    env.script(
      agentOfType('WebFetch', [{ text: 'The page says release 7 ships MCP support.' }]),
      agentOfType('WebSearch', [
        {
          serverToolUses: [{ name: 'web_search', input: { query: 'temporal workflows' } }],
          text: 'Workflows are durable.',
        },
      ]),
      agentPrompted('research the release', [
        { toolUses: [{ name: 'TodoWrite', input: todo(['in_progress', 'pending']) }] },
        {
          toolUses: [
            { name: 'WebFetch', input: { url: `${site.url()}/changelog`, prompt: 'What does release 7 ship?' } },
            { name: 'WebSearch', input: { query: 'temporal workflows', allowed_domains: ['temporal.io'] } },
          ],
        },
        { toolUses: [{ name: 'TodoWrite', input: todo(['completed', 'in_progress']) }] },
        { toolUses: [{ name: 'TodoWrite', input: { todos: [{ content: 'x', status: 'finished' }] } }] },
        { text: 'Done: release 7 ships MCP support.' },
      ]),
    );
    const { handle, result } = await runCompleted(env, { prompt: 'Please research the release' });
    expect(result.toolUses).toBe(5);

    // The tools' own model calls count: the small model's tokens and the search.
    expect(result.usage.webSearchRequests).toBe(1);
    const own = env.modelServer
      .requests()
      .filter((request) => request.headers['x-subagents-agent-type'] === 'general-purpose');
    const ownInput = own.reduce(
      (sum, request) => sum + ((request.usage as { input_tokens: number }).input_tokens ?? 0),
      0,
    );
    expect(result.usage.inputTokens).toBeGreaterThan(ownInput);

    const bodies = requestBodies(env.modelServer).filter((body) =>
      body.tools?.some((tool) => tool.name === 'TodoWrite'),
    );
    expect(bodies[0]!.tools!.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['WebFetch', 'WebSearch', 'TodoWrite']),
    );
    const messages = await handle.messages();
    const results = messages
      .flatMap((message) => blocks(message.content))
      .filter((block) => block.type === 'tool_result');
    expect(results).toHaveLength(5);
    expect(String(results[0]!.content)).toMatch(/^Todo list updated: 1 in progress, 1 pending, 0 completed/);
    expect(String(results[1]!.content)).toMatch(
      new RegExp(`^Fetched ${site.url()}/changelog \\(HTTP 200[\\s\\S]*The page says release 7 ships MCP support\\.`),
    );
    expect(String(results[2]!.content)).toContain('1. Temporal Workflows — https://docs.temporal.io/workflows');
    expect(results[4]).toMatchObject({
      is_error: true,
      content: expect.stringMatching(
        /^InvalidToolInput: TodoWrite was called with invalid input: "todos.0.activeForm"/,
      ),
    });

    // The last valid list stays in the agent's state (the status query), the invalid one changed nothing.
    const status = await handle.status();
    expect(status.todos).toEqual(todo(['completed', 'in_progress']).todos);
    // The UI's current details show the list, also once the agent has finished.
    const metadata = (await env.temporal.client.workflow
      .getHandle(handle.agentId)
      .query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(metadata.currentDetails).toMatch(
      /^\*\*completed\*\* after 5 turns[\s\S]*\*\*Todos\*\* 1\/2 done · now: Searching the docs\n- \[x\] Read the changelog\n- \[ \] \*\*Searching the docs\*\*$/,
    );
    // WebFetch's small model got the page as Markdown, not HTML.
    const fetchRequest = env.modelServer
      .requests()
      .find((request) => request.headers['x-subagents-agent-type'] === 'WebFetch')!;
    expect(fetchRequest.rawBody).toContain('# Changelog');
    expect(fetchRequest.rawBody).not.toContain('<p>');
    // The web tools are activities named like the tool.
    const history = await env.temporal.client.workflow.getHandle(handle.agentId).fetchHistory();
    const activities = (history.events ?? [])
      .map((event) => event.activityTaskScheduledEventAttributes?.activityType?.name)
      .filter(Boolean);
    expect(activities.filter((name) => name === 'WebFetch' || name === 'WebSearch').sort()).toEqual([
      'WebFetch',
      'WebSearch',
    ]);
  });
});
