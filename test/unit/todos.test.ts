import { describe, expect, it } from 'vitest';
import { parseTodoWriteInput, todoLines, todoSummary, todoWriteResult } from '../../src/shared/tools/todos';

const item = (content: string, status: string) => ({ content, status, activeForm: `${content}ing` });

describe('TodoWrite input', () => {
  it('accepts the list and summarises it', () => {
    const parsed = parseTodoWriteInput({
      todos: [item('Test', 'completed'), item('Build', 'in_progress'), item('Ship', 'pending')],
    });
    expect(parsed.ok).toBe(true);
    const todos = parsed.ok ? parsed.todos : [];
    expect(todoSummary(todos)).toBe('1/3 done · now: Building');
    expect(todoLines(todos)).toEqual(['- [x] Test', '- [ ] **Building**', '- [ ] Ship']);
    expect(todoWriteResult(todos)).toMatch(/^Todo list updated: 1 in progress, 1 pending, 1 completed\./);
    expect(parseTodoWriteInput({ todos: [] })).toEqual({ ok: true, todos: [] });
    expect(todoSummary([])).toBe('');
  });

  it('refuses hostile or malformed input with a message naming the problem', () => {
    const cases: Array<[unknown, RegExp]> = [
      [null, /must be an object/],
      ['todos', /must be an object/],
      [{}, /"todos" is required/],
      [{ todos: 'x' }, /"todos" is required and must be an array/],
      [{ todos: [], extra: 1 }, /unknown field "extra"/],
      [{ todos: [null] }, /"todos.0" must be an object/],
      [
        { todos: [{ content: 'a', status: 'done', activeForm: 'b' }] },
        /"todos.0.status" must be one of pending, in_progress, completed/,
      ],
      [
        { todos: [{ content: '', status: 'pending', activeForm: 'b' }] },
        /"todos.0.content" must be a non-empty string/,
      ],
      [{ todos: [{ content: 'a', status: 'pending' }] }, /"todos.0.activeForm" must be a non-empty string/],
      [{ todos: [{ content: 'a', status: 'pending', activeForm: 'b', id: 1 }] }, /unknown field "id"/],
      [{ todos: [{ content: 'x'.repeat(2000), status: 'pending', activeForm: 'b' }] }, /longer than 1000 characters/],
      [{ todos: Array.from({ length: 101 }, () => item('a', 'pending')) }, /101 items; at most 100/],
    ];
    for (const [input, message] of cases) {
      const parsed = parseTodoWriteInput(input);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.error).toMatch(/^InvalidToolInput: TodoWrite was called with invalid input: /);
      if (!parsed.ok) expect(parsed.error).toMatch(message);
    }
  });
});
