import { describe, expect, it } from 'vitest';
import { withRepositoryLock } from '../../../src/worktree/repository-lock';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('withRepositoryLock', () => {
  it('runs work for the same repository one at a time, in order, and other repositories alongside', async () => {
    const events: string[] = [];
    const gate = deferred();
    const first = withRepositoryLock('repo-a', async () => {
      events.push('a1 start');
      await gate.promise;
      events.push('a1 end');
    });
    const second = withRepositoryLock('repo-a', async () => {
      events.push('a2');
    });
    const other = withRepositoryLock('repo-b', async () => {
      events.push('b');
    });
    await other;
    expect(events).toEqual(['a1 start', 'b']);
    gate.resolve();
    await Promise.all([first, second]);
    expect(events).toEqual(['a1 start', 'b', 'a1 end', 'a2']);
  });

  it('passes results and errors through, and a failure does not block the next caller', async () => {
    await expect(withRepositoryLock('repo', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(withRepositoryLock('repo', () => Promise.resolve(42))).resolves.toBe(42);
  });
});
