// Front matter `effort` → `output_config.effort`, left out for models that take none (docs/agent-definitions.md).
export const effortLevels = ['low', 'medium', 'high', 'xhigh', 'max'] as const;

export type EffortLevel = (typeof effortLevels)[number];

const allLevels: readonly EffortLevel[] = effortLevels;
const upToMax: readonly EffortLevel[] = ['low', 'medium', 'high', 'max'];
const upToHigh: readonly EffortLevel[] = ['low', 'medium', 'high'];

/** Model id prefixes and the levels they take, the first match wins (longer prefixes first). */
const levelsByPrefix: Array<[string, readonly EffortLevel[]]> = [
  ['claude-test-', allLevels],
  ['claude-opus-4-5', upToHigh],
  ['claude-opus-4-6', upToMax],
  ['claude-sonnet-4-6', upToHigh],
  ['claude-opus-4-7', allLevels],
  ['claude-opus-4-8', allLevels],
  ['claude-mythos-', allLevels],
  ['claude-opus-5', allLevels],
  ['claude-sonnet-5', allLevels],
  ['claude-haiku-5', allLevels],
  ['claude-fable-5', allLevels],
  ['claude-opus-4', []],
  ['claude-sonnet-4', []],
  ['claude-haiku-4', []],
  ['claude-3', []],
];

/** Whether a value is one of the levels. */
export function isEffortLevel(value: unknown): value is EffortLevel {
  return typeof value === 'string' && (effortLevels as readonly string[]).includes(value);
}

/** The levels a model takes; undefined for a model this table does not know (the effort is sent unchanged). */
export function modelEffortLevels(model: string): readonly EffortLevel[] | undefined {
  return levelsByPrefix.find(([prefix]) => model.startsWith(prefix))?.[1];
}

/** The requested effort if the model takes it, else the highest lower level it takes, else none. */
export function effortForModel(model: string, requested: EffortLevel): EffortLevel | undefined {
  const levels = modelEffortLevels(model);
  if (levels === undefined || levels.includes(requested)) return requested;
  const rank = effortLevels.indexOf(requested);
  return [...levels].reverse().find((level) => effortLevels.indexOf(level) < rank);
}
