/** Calls `then` where `turns` × `await Promise.resolve()` would resume, with fewer promises (stack captures). */
export function afterMicrotaskTurns(turns: number, then: () => void): void {
  let chain = Promise.resolve();
  for (let turn = 1; turn < turns; turn++) chain = chain.then(noop);
  void chain.then(then);
}

function noop(): void {}
