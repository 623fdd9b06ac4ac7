// Tables of cases for pure functions: one assertion per case, each failure naming its case.
import { expect } from 'vitest';

/** Expects `decide(...args)` to be true for every `yes` case and false for every `no` case. */
export function expectYesNo<Args extends unknown[]>(
  decide: (...args: Args) => boolean,
  cases: { yes?: Args[]; no?: Args[] },
): void {
  for (const args of cases.yes ?? []) expect(decide(...args), `yes: ${JSON.stringify(args)}`).toBe(true);
  for (const args of cases.no ?? []) expect(decide(...args), `no: ${JSON.stringify(args)}`).toBe(false);
}

/** Expects `compute(...args)` to equal the expected value of every `[args, expected]` case. */
export function expectResults<Args extends unknown[], Result>(
  compute: (...args: Args) => Result,
  cases: Array<[Args, Result]>,
): void {
  for (const [args, expected] of cases) expect(compute(...args), JSON.stringify(args)).toEqual(expected);
}
