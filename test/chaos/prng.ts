// A small seeded PRNG (mulberry32): the same seed gives the same plan of kill points.

export interface Prng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  shuffle<T>(items: readonly T[]): T[];
}

export function createPrng(seed: number): Prng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[int(0, items.length - 1)]!;
    },
    shuffle: <T>(items: readonly T[]): T[] => {
      const copy = [...items];
      for (let index = copy.length - 1; index > 0; index--) {
        const other = int(0, index);
        [copy[index], copy[other]] = [copy[other]!, copy[index]!];
      }
      return copy;
    },
  };
}

/** The seed from `--seed N` or CHAOS_SEED, else a fresh one (printed, so a run can be repeated). */
export function seedFromArgs(argv: readonly string[], env: NodeJS.ProcessEnv): number {
  const flag = argv.indexOf('--seed');
  const text = flag >= 0 ? argv[flag + 1] : env.CHAOS_SEED;
  if (text !== undefined && text.trim() !== '') {
    const value = Number(text);
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff)
      throw new Error(`The seed must be an integer in [0, 2^32); got "${text}".`);
    return value;
  }
  return (Date.now() ^ (process.pid << 16)) >>> 0;
}
