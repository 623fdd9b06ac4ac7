// The scripted agents of bench:rewind: a writer (one appended line a turn, so a checkpoint a turn), a reader (the same
// turns with a Read, so none), a writer that ends waiting in a Bash (to be rewound while it runs), and the forks.
import type { Scenario, Turn } from '../../src/model-server/scenario-schema';

/** The tracked file every writing turn appends to (a clone of this repository is the workspace). */
export const editedFile = 'README.md';

/** The line turn `turn` appends: zero-padded, so a later line's text never contains an earlier one's. */
export const appendedLine = (turn: number): string => `bench-rewind line ${String(turn).padStart(4, '0')}`;

const append = (turn: number): Turn => ({
  toolUses: [{ name: 'Bash', input: { command: `echo '${appendedLine(turn)}' >> ${editedFile}` } }],
});
const readOneLine: Turn = { toolUses: [{ name: 'Read', input: { file_path: editedFile, offset: 1, limit: 1 } }] };

/** Agent names and fork ids the scenario answers. */
export interface RewindScenarioAgents {
  turns: number;
  /** Forks without a prompt: each answers once after the boundary it starts from. */
  forks: { agentId: string; turn: number }[];
  /** A fork in its own worktree: it shows the last line of the edited file, then answers. */
  worktreeFork: { agentId: string; turn: number };
}

/** The scenario; fork entries come first, as a fork keeps its source's name. */
export function rewindScenario({ turns, forks, worktreeFork }: RewindScenarioAgents): Scenario {
  const appends = Array.from({ length: turns }, (_, index) => append(index + 1));
  return {
    agents: [
      ...forks.map(({ agentId, turn }) => ({
        match: { agentId },
        turnOffset: turn,
        turns: [{ text: `Fork ${agentId} done.` }],
      })),
      {
        match: { agentId: worktreeFork.agentId },
        turnOffset: worktreeFork.turn,
        turns: [
          { toolUses: [{ name: 'Bash', input: { command: `tail -n 1 ${editedFile}` } }] },
          { text: 'Worktree fork done.' },
        ],
      },
      { match: { agentName: 'writer' }, turns: [...appends, { text: 'Writer done.' }] },
      {
        match: { agentName: 'reader' },
        turns: [...Array.from({ length: turns }, () => readOneLine), { text: 'Reader done.' }],
      },
      {
        // Interrupted by each rewind; after the first it replays the later appends and waits again.
        match: { agentName: 'rewound' },
        turns: [...appends, { toolUses: [{ name: 'Bash', input: { command: 'sleep 100' } }] }, { text: 'Never.' }],
      },
    ],
  };
}
