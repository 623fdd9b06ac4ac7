// @slow
import { describe, expect, it } from 'vitest';
import type { LiveActivity } from '../../src/client/live-activities';
import { liveLimits } from '../../src/shared/protocol/live-activity';
import { useAgentTestEnv } from '../helpers/agent-env';
import { waitFor } from '../helpers/child-worker';
import { agentNamed } from '../helpers/scripted-agents';

const env = useAgentTestEnv();

const streamedText = 'Reading the repository layout first. Then I will list the test files and run them one by one.';

describe('live details in heartbeats', () => {
  it("describe shows the text streamed so far during a slow model stream, then a command's last output lines", async () => {
    env.script(
      agentNamed('live', [
        {
          text: streamedText,
          toolUses: [
            { name: 'Bash', input: { command: 'for i in 1 2 3 4 5 6 7; do echo "step $i"; done; sleep 4; echo done' } },
          ],
          eventDelayMs: 1200,
        },
        { text: 'All done.' },
      ]),
    );
    const handle = await env.start({ prompt: 'work slowly', name: 'live' });

    let partial: LiveActivity | undefined;
    await waitFor(
      async () => {
        const activities = await handle.live();
        partial = activities.find((activity) => activity.details?.kind === 'model' && activity.details.text.length > 0);
        return partial !== undefined;
      },
      60_000,
      'live text of the model call',
    );
    const model = partial!.details!;
    if (model.kind !== 'model') throw new Error('expected model details');
    expect(partial!.activityType).toBe('callModel');
    expect(model.turn).toBe(1);
    // A prefix of the text, seen before the stream ended (the stream sends it in three slow deltas).
    expect(streamedText.startsWith(model.text)).toBe(true);
    expect(model.text.length).toBeLessThan(streamedText.length);
    expect(model.textChars).toBe(model.text.length);

    let bash: LiveActivity | undefined;
    await waitFor(
      async () => {
        const activities = await handle.live();
        bash = activities.find(
          (activity) => activity.details?.kind === 'tool' && (activity.details.lines ?? []).includes('step 7'),
        );
        return bash !== undefined;
      },
      60_000,
      "the command's output lines",
    );
    const tool = bash!.details!;
    if (tool.kind !== 'tool') throw new Error('expected tool details');
    expect(tool.tool).toBe('Bash');
    // Only the last lines are kept.
    expect(tool.lines).toEqual(['step 3', 'step 4', 'step 5', 'step 6', 'step 7'].slice(-liveLimits.outputLines));

    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(await handle.live()).toEqual([]);
  });
});
