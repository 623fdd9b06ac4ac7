// Wall-time cap durations (`30m`): a narrow grammar, not `ms`'s, which also reads "2 weeks", "1y" and negatives.

/** The longest wall-time cap accepted: a year (longer is a typo, not a budget). */
export const maxDurationMs = 366 * 24 * 60 * 60 * 1000;

const unitMs: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The shape accepted: digits with an optional fraction, then an optional unit (ms when none). */
const durationPattern = /^(\d{1,12}(?:\.\d{1,6})?)\s*(ms|s|m|h|d)?$/;

/** What a duration means in ms, or what is wrong with it (a sentence naming the accepted forms). */
export function parseDuration(value: unknown): { ok: true; ms: number } | { ok: false; error: string } {
  const shown =
    typeof value === 'string' ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value) : String(value);
  const bad = (): { ok: false; error: string } => ({
    ok: false,
    error: `${shown} is not a duration: give a positive number and a unit, e.g. 90s, 30m, 2h or 1d (a bare number is milliseconds), at most ${maxDurationMs / 86_400_000} days`,
  });
  let ms: number;
  if (typeof value === 'number') ms = value;
  else if (typeof value === 'string') {
    const match = durationPattern.exec(value.trim());
    if (!match) return bad();
    ms = Number(match[1]) * unitMs[match[2] ?? 'ms']!;
  } else return bad();
  ms = Math.round(ms);
  if (!Number.isFinite(ms) || ms < 1 || ms > maxDurationMs) return bad();
  return { ok: true, ms };
}
