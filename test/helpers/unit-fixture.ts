// One lifecycle for the temporary things unit and activity tests make fresh for each test.
import { afterEach, beforeEach } from 'vitest';

/** What a test makes and removes again: a temporary workspace, repository or definition tree. */
interface Fixture {
  cleanup(): Promise<unknown>;
}

/** Creates a fixture before each test of the enclosing block, hands it to `use`, and cleans it up after the test. */
export function freshForEachTest<T extends Fixture>(create: () => Promise<T>, use: (fixture: T) => void): void {
  let current: T | undefined;
  beforeEach(async () => {
    current = await create();
    use(current);
  });
  afterEach(async () => {
    await current?.cleanup();
    current = undefined;
  });
}
