// Several tsop writers on one project at once (3 × `tsop bundle` + `tsop generate` per round,
// kill -9 at random points): every round must end with a complete output and every refused run
// with a readable message. Prints the figures (docs/safety.md quotes them).
//   npm run stress:writers -- [rounds=200] [ballast MiB=8] [seed]
// The ballast is a file of the user's in bundle/ that every commit stages: it widens the window in
// which writers overlap (test/support/writers-stress.ts).
import { stressWriters } from "../test/support/writers-stress.js";

const rounds = Number(process.argv[2] ?? 200);
const ballastMiB = Number(process.argv[3] ?? 8);
const seed = process.argv[4] === undefined ? undefined : Number(process.argv[4]);
const started = Date.now();
const figures = await stressWriters({
  rounds,
  ballastMiB,
  ...(seed === undefined ? {} : { seed }),
  log: (line) => process.stderr.write(`${line}\n`),
});
const { problems, refusals, ...counts } = figures;
console.log(
  `stress:writers — ${figures.rounds} rounds (ballast ${ballastMiB} MiB) in ${Math.round((Date.now() - started) / 1000)} s`,
);
for (const [key, value] of Object.entries(counts)) console.log(`  ${key.padEnd(16)} ${value}`);
for (const [message, count] of Object.entries(refusals)) console.log(`  refused ×${count}: ${message}`);
if (problems.length > 0) {
  console.log(`\n${problems.length} problem(s):`);
  for (const p of problems) console.log(`- ${p}`);
  process.exit(1);
}
console.log("  problems         0");
