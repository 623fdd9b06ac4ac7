/**
 * Calls `then` `turns` (≥ 1) microtask turns from now: at the same turn, and in the same place in it, as that
 * many `await Promise.resolve()` in an async function called now would run what follows them — so code
 * that replaced such awaits keeps the order of a run's commands — with `turns + 1` promises instead of
 * `2 × turns + 1` (a resolved promise and an await each, and the async function's own): the SDK captures
 * a stack trace for every promise workflow code makes (docs/operations.md, "Worker tuning").
 */
export function afterMicrotaskTurns(turns: number, then: () => void): void {
  let chain = Promise.resolve();
  for (let turn = 1; turn < turns; turn++) chain = chain.then(noop);
  void chain.then(then);
}

function noop(): void {}
