// npm run bench:grep — Grep's time on this repository against plain rg with the same arguments (also in bench:overhead).
import { measureGrep } from './helpers/grep-times';

const runs = Number(process.env.BENCH_RUNS ?? 10);
const times = await measureGrep(process.cwd(), runs);
if (!times) {
  console.error('bench:grep needs rg (apt-get install ripgrep)');
  process.exitCode = 1;
} else {
  console.log(
    `grep benchmark: Grep (the tool, rg under it) against plain rg with the same arguments on this repository; median of ${runs} runs (ms)`,
  );
  console.log(`${'search'.padEnd(44)}${'Grep'.padStart(10)}${'plain rg'.padStart(10)}`);
  for (const row of times.rows)
    console.log(`${row.search.padEnd(44)}${String(row.grepMs).padStart(10)}${String(row.plainRgMs).padStart(10)}`);
  console.log(JSON.stringify({ grepMsP50: times.grepMsP50, plainRgMsP50: times.plainRgMsP50, runs }));
}
