// How a root watches its settings files (docs/hooks.md, "Where hooks are configured"), decided from its recorded input.
import { describe, expect, it } from 'vitest';
import { buildChildInput, buildRootInput, withSettingsWatch } from '../../src/shared/agents/agent-input';
import { resumeInput } from '../../src/shared/agents/resume';
import { workspaceWorker } from '../../src/shared/workspace/workspace-routing';
import { settingsWatchOf } from '../../src/workflows/loop/settings-reload';
import { testRootSpec } from '../helpers/root-spec';

const placement = workspaceWorker('q', 'w1');

describe('settingsWatchOf', () => {
  it('keeps the activity of a root whose files configured something, placed or not', () => {
    expect(settingsWatchOf({}, true)).toBe('activity');
    expect(settingsWatchOf({ workspaceWorker: placement }, true)).toBe('activity');
  });

  it('looks in the model call of an unplaced root without settings', () => {
    expect(settingsWatchOf({}, false)).toBe('model-call');
  });

  it('runs the activity for a placed root without settings whose input asks for it', () => {
    expect(settingsWatchOf({ workspaceWorker: placement, watchSettings: 'activity' }, false)).toBe('activity');
  });

  it('does not look for a placed root without settings whose input predates the field (recorded runs replay)', () => {
    expect(settingsWatchOf({ workspaceWorker: placement }, false)).toBe('none');
  });
});

describe('watchSettings in the input', () => {
  it('is set on a new placed root only', () => {
    expect(buildRootInput(testRootSpec)).not.toHaveProperty('watchSettings');
    expect(buildRootInput({ ...testRootSpec, workspaceWorker: placement }).watchSettings).toBe('activity');
  });

  it('is not given to children (they take their root’s settings by signal)', () => {
    const root = buildRootInput({ ...testRootSpec, workspaceWorker: placement });
    const child = buildChildInput(
      { input: root, inForegroundChain: true, toolUseId: 't1' },
      { ...testRootSpec, agentId: 'agent-1.1', background: false },
    );
    expect(child).not.toHaveProperty('watchSettings');
    expect(withSettingsWatch(child)).toBe(child);
  });

  it('is carried by a resumed run, and added to a new run of a placed root started before it existed', () => {
    const root = buildRootInput({ ...testRootSpec, workspaceWorker: placement });
    expect(resumeInput({ input: root, carried: { messages: [] } } as never, 'again').watchSettings).toBe('activity');
    const { watchSettings, ...old } = root;
    expect(watchSettings).toBe('activity');
    expect(withSettingsWatch(old).watchSettings).toBe('activity');
    const unplaced = buildRootInput(testRootSpec);
    expect(withSettingsWatch(unplaced)).toBe(unplaced);
  });
});
