// The TodoWrite list: shape, a hand-written input check (workflow code compiles no zod) and its summary.
import { ErrorType, errorText } from '../protocol/errors';
import { webToolLimits } from './web-tool-definitions';

export type TodoStatus = 'pending' | 'in_progress' | 'completed';

export interface Todo {
  content: string;
  status: TodoStatus;
  /** Present continuous form, shown while the item is in progress. */
  activeForm: string;
}

const statuses: readonly string[] = ['pending', 'in_progress', 'completed'];

const invalid = (detail: string) => ({
  ok: false as const,
  error: errorText(
    ErrorType.InvalidToolInput,
    `TodoWrite was called with invalid input: ${detail}. Fix the input and call TodoWrite again.`,
  ),
});

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function textField(item: Record<string, unknown>, key: string, index: number): string | { error: string } {
  const value = item[key];
  if (typeof value !== 'string' || value.trim() === '')
    return { error: `"todos.${index}.${key}" must be a non-empty string` };
  if (value.length > webToolLimits.maxTodoChars)
    return { error: `"todos.${index}.${key}" is longer than ${webToolLimits.maxTodoChars} characters` };
  return value.trim();
}

/** Validates TodoWrite's input: `{ todos: [{ content, status, activeForm }] }`, nothing else. */
export function parseTodoWriteInput(input: unknown): { ok: true; todos: Todo[] } | { ok: false; error: string } {
  if (!isRecord(input)) return invalid('the input must be an object with a "todos" array');
  const extra = Object.keys(input).filter((key) => key !== 'todos');
  if (extra.length > 0)
    return invalid(`unknown field ${extra.map((key) => `"${key}"`).join(', ')} (allowed fields: todos)`);
  const list = input.todos;
  if (!Array.isArray(list)) return invalid('"todos" is required and must be an array');
  if (list.length > webToolLimits.maxTodos)
    return invalid(`"todos" has ${list.length} items; at most ${webToolLimits.maxTodos} are kept`);
  const todos: Todo[] = [];
  for (const [index, item] of list.entries()) {
    if (!isRecord(item)) return invalid(`"todos.${index}" must be an object with content, status and activeForm`);
    const unknown = Object.keys(item).filter((key) => !['content', 'status', 'activeForm'].includes(key));
    if (unknown.length > 0)
      return invalid(`"todos.${index}" has unknown field ${unknown.map((key) => `"${key}"`).join(', ')}`);
    const content = textField(item, 'content', index);
    if (typeof content !== 'string') return invalid(content.error);
    const activeForm = textField(item, 'activeForm', index);
    if (typeof activeForm !== 'string') return invalid(activeForm.error);
    if (typeof item.status !== 'string' || !statuses.includes(item.status)) {
      return invalid(`"todos.${index}.status" must be one of ${statuses.join(', ')}`);
    }
    todos.push({ content, status: item.status as TodoStatus, activeForm });
  }
  return { ok: true, todos };
}

/** `2/5 done · now: Running the tests` (empty for no list). */
export function todoSummary(todos: readonly Todo[] | undefined): string {
  if (!todos || todos.length === 0) return '';
  const done = todos.filter((todo) => todo.status === 'completed').length;
  const current = todos.find((todo) => todo.status === 'in_progress');
  return `${done}/${todos.length} done${current ? ` · now: ${current.activeForm}` : ''}`;
}

/** The list as Markdown task lines (`- [x] ...`, `- [ ] ...`, the current one in bold). */
export function todoLines(todos: readonly Todo[]): string[] {
  return todos.map((todo) =>
    todo.status === 'completed'
      ? `- [x] ${todo.content}`
      : todo.status === 'in_progress'
        ? `- [ ] **${todo.activeForm}**`
        : `- [ ] ${todo.content}`,
  );
}

/** What the model is told after a successful TodoWrite. */
export function todoWriteResult(todos: readonly Todo[]): string {
  const count = (status: TodoStatus) => todos.filter((todo) => todo.status === status).length;
  return (
    `Todo list updated: ${count('in_progress')} in progress, ${count('pending')} pending, ${count('completed')} completed. ` +
    'Keep it current as you work: mark each item completed as soon as it is done.'
  );
}
