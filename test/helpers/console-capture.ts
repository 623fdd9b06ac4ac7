import { afterEach, vi } from 'vitest';

/**
 * What the CLI prints to the console in a test, one line per call (stdout and stderr together). Call it
 * inside a `describe`: `capture()` starts catching, and after each test the console is restored and the lines cleared.
 */
export function consoleCapture(): { printed: string[]; capture(): void } {
  const printed: string[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    printed.length = 0;
  });
  return {
    printed,
    capture: () => {
      vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void printed.push(parts.join(' ')));
      vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => void printed.push(parts.join(' ')));
    },
  };
}
