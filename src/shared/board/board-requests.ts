import {
  taskStatuses,
  type BoardActor,
  type CreateTaskRequest,
  type ReleaseTaskRequest,
  type TaskStatus,
  type UpdateTaskRequest,
} from './board';
import { boardLimits } from './board-limits';

// Hand-written board request parsers (they run in the sandbox too): untrusted input, never throw, list every problem.
export type Parsed<T> = { ok: true; value: T } | { ok: false; problems: string[] };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Accepts 3, "3" and "#3" as task id "3". */
export function normalizeTaskId(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return String(value);
  if (typeof value !== 'string') return undefined;
  const match = /^#?([1-9][0-9]{0,8})$/.exec(value.trim());
  return match?.[1];
}

/** Reads the fields of one request object, collecting problems instead of throwing. */
class FieldReader {
  readonly problems: string[] = [];

  constructor(
    private readonly raw: Record<string, unknown>,
    allowed: readonly string[],
  ) {
    const unknown = Object.keys(raw).filter((key) => !allowed.includes(key));
    if (unknown.length > 0)
      this.problems.push(
        `unknown field(s) ${unknown.map((key) => `"${key.slice(0, 40)}"`).join(', ')} (allowed: ${allowed.join(', ')})`,
      );
  }

  private present(key: string): boolean {
    return this.raw[key] !== undefined && this.raw[key] !== null;
  }

  text(key: string, max: number, options: { required?: boolean; allowEmpty?: boolean } = {}): string | undefined {
    if (!this.present(key)) {
      if (options.required) this.problems.push(`"${key}" is required`);
      return undefined;
    }
    const value = this.raw[key];
    if (typeof value !== 'string') {
      this.problems.push(`"${key}" must be a string`);
      return undefined;
    }
    if (!options.allowEmpty && value.trim() === '') this.problems.push(`"${key}" must not be empty`);
    else if (value.length > max) this.problems.push(`"${key}" has ${value.length} characters; the limit is ${max}`);
    return value;
  }

  taskId(key: string): string | undefined {
    if (!this.present(key)) {
      this.problems.push(`"${key}" is required (a task id such as "3")`);
      return undefined;
    }
    const id = normalizeTaskId(this.raw[key]);
    if (id === undefined) this.problems.push(`"${key}" must be a task id such as "3"`);
    return id;
  }

  taskIds(key: string): string[] | undefined {
    if (!this.present(key)) return undefined;
    const value = this.raw[key];
    if (!Array.isArray(value)) {
      this.problems.push(`"${key}" must be a list of task ids, e.g. ["1", "2"]`);
      return undefined;
    }
    if (value.length > boardLimits.maxDependencies) {
      this.problems.push(`"${key}" lists ${value.length} tasks; the limit is ${boardLimits.maxDependencies}`);
      return undefined;
    }
    const ids = value.map(normalizeTaskId);
    if (ids.some((id) => id === undefined)) {
      this.problems.push(`"${key}" must contain task ids such as "3"`);
      return undefined;
    }
    return [...new Set(ids as string[])];
  }

  status(key: string, allowed: readonly string[]): string | undefined {
    if (!this.present(key)) return undefined;
    const value = this.raw[key];
    if (typeof value !== 'string' || !allowed.includes(value)) {
      this.problems.push(`"${key}" must be one of ${allowed.join(', ')}`);
      return undefined;
    }
    return value;
  }

  metadata(key: string): Record<string, unknown> | undefined {
    if (!this.present(key)) return undefined;
    const value = this.raw[key];
    if (!isRecord(value)) {
      this.problems.push(`"${key}" must be an object`);
      return undefined;
    }
    let size: number;
    try {
      size = JSON.stringify(value).length;
    } catch {
      this.problems.push(`"${key}" must be plain JSON`);
      return undefined;
    }
    if (size > boardLimits.maxMetadataChars)
      this.problems.push(`"${key}" is ${size} characters of JSON; the limit is ${boardLimits.maxMetadataChars}`);
    return value;
  }

  actor(key: string): BoardActor | undefined {
    const value = this.raw[key];
    if (!isRecord(value)) {
      this.problems.push(`"${key}" must be an object {kind: "agent" | "person", id}`);
      return undefined;
    }
    const inner = new FieldReader(value, ['kind', 'id', 'name', 'rootAgentId']);
    const kind = inner.status('kind', ['agent', 'person']);
    if (kind === undefined && !inner.problems.length) inner.problems.push('"kind" is required');
    const id = inner.text('id', boardLimits.maxOwnerChars, { required: true });
    const name = inner.text('name', boardLimits.maxOwnerChars);
    const rootAgentId = inner.text('rootAgentId', boardLimits.maxOwnerChars);
    this.problems.push(...inner.problems.map((problem) => `${key}: ${problem}`));
    if (inner.problems.length > 0 || !kind || !id) return undefined;
    return { kind: kind as BoardActor['kind'], id, ...(name ? { name } : {}), ...(rootAgentId ? { rootAgentId } : {}) };
  }
}

function done<T>(reader: FieldReader, value: T): Parsed<T> {
  return reader.problems.length > 0 ? { ok: false, problems: reader.problems } : { ok: true, value };
}

const notAnObject = <T>(): Parsed<T> => ({ ok: false, problems: ['the request must be a JSON object'] });

/** Drops undefined fields, so requests compare and serialise cleanly. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

export function parseCreateTask(raw: unknown): Parsed<CreateTaskRequest> {
  if (!isRecord(raw)) return notAnObject();
  const reader = new FieldReader(raw, [
    'actor',
    'requestId',
    'subject',
    'description',
    'activeForm',
    'metadata',
    'blockedBy',
  ]);
  const request = defined({
    actor: reader.actor('actor')!,
    requestId: reader.text('requestId', 200),
    subject: reader.text('subject', boardLimits.maxSubjectChars, { required: true })!,
    description: reader.text('description', boardLimits.maxDescriptionChars, { required: true, allowEmpty: true })!,
    activeForm: reader.text('activeForm', boardLimits.maxActiveFormChars),
    metadata: reader.metadata('metadata'),
    blockedBy: reader.taskIds('blockedBy'),
  });
  return done(reader, request);
}

/** The statuses TaskUpdate accepts: the task statuses, and 'deleted'. */
export const updateStatuses = [...taskStatuses, 'deleted'] as const;

export function parseUpdateTask(raw: unknown): Parsed<UpdateTaskRequest> {
  if (!isRecord(raw)) return notAnObject();
  const reader = new FieldReader(raw, [
    'actor',
    'taskId',
    'subject',
    'description',
    'activeForm',
    'status',
    'owner',
    'addBlocks',
    'addBlockedBy',
    'removeBlockedBy',
    'note',
    'metadata',
  ]);
  const request = defined({
    actor: reader.actor('actor')!,
    taskId: reader.taskId('taskId')!,
    subject: reader.text('subject', boardLimits.maxSubjectChars),
    description: reader.text('description', boardLimits.maxDescriptionChars, { allowEmpty: true }),
    activeForm: reader.text('activeForm', boardLimits.maxActiveFormChars, { allowEmpty: true }),
    status: reader.status('status', updateStatuses) as TaskStatus | 'deleted' | undefined,
    owner: reader.text('owner', boardLimits.maxOwnerChars, { allowEmpty: true }),
    addBlocks: reader.taskIds('addBlocks'),
    addBlockedBy: reader.taskIds('addBlockedBy'),
    removeBlockedBy: reader.taskIds('removeBlockedBy'),
    note: reader.text('note', boardLimits.maxNoteChars, { allowEmpty: true }),
    metadata: reader.metadata('metadata'),
  });
  return done(reader, request);
}

export function parseReleaseTask(raw: unknown): Parsed<ReleaseTaskRequest> {
  if (!isRecord(raw)) return notAnObject();
  const reader = new FieldReader(raw, ['actor', 'taskId', 'reason']);
  const request = defined({
    actor: reader.actor('actor')!,
    taskId: reader.taskId('taskId')!,
    reason: reader.text('reason', boardLimits.maxNoteChars),
  });
  return done(reader, request);
}

/** TaskList's optional filters. */
export interface TaskListFilter {
  status?: TaskStatus;
  owner?: string;
}

export function parseTaskListFilter(raw: unknown): Parsed<TaskListFilter> {
  if (!isRecord(raw)) return notAnObject();
  const reader = new FieldReader(raw, ['status', 'owner']);
  const filter = defined({
    status: reader.status('status', taskStatuses) as TaskStatus | undefined,
    owner: reader.text('owner', boardLimits.maxOwnerChars),
  });
  return done(reader, filter);
}

/** Problems as one sentence list. */
export function describeProblems(problems: readonly string[]): string {
  return `${problems.join('; ')}.`;
}
