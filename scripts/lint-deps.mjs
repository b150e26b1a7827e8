// `npm run lint:deps` = `depcruise src --output-type json | node scripts/lint-deps.mjs`. Prints the
// violations of the rules in .dependency-cruiser.cjs (file-level import cycles, a domain importing another
// domain's internals, platform/ importing domains/), then the cycles between domains (src/domains/<d>/),
// which the file-level rule misses when each direction goes through other files (quotes/a.ts → sca,
// sca/b.ts → quotes), each with one file-level import per step for short ones. Exits 1 on any of them.
// `--all` also counts adapters/, platform/, cli/ and the top-level files of src/ as parts in the cycle
// report (informative; not what CI checks).
import { readFileSync } from 'node:fs';

const unit = (p) => {
  const m = p.match(/^src\/domains\/([^/]+)\//);
  if (m) return `domains/${m[1]}`;
  const top = p.match(/^src\/([^/]+)\//);
  return top ? top[1] : p.replace(/^src\//, '');
};
const all = process.argv.includes('--all');
const { modules, summary } = JSON.parse(readFileSync(0, 'utf8'));

const byRule = new Map();
for (const v of summary.violations) {
  const line = v.cycle ? [v.from, ...v.cycle.map((c) => c.name)].join(' → ') : `${v.from} → ${v.to}`;
  if (!byRule.has(v.rule.name)) byRule.set(v.rule.name, []);
  byRule.get(v.rule.name).push(line);
}
for (const [rule, lines] of byRule) {
  console.log(`${rule}: ${lines.length} violation(s)`);
  for (const l of lines.sort()) console.log(`  ${l}`);
}
const ruleViolations = summary.violations.length;
console.log(`dependency rules: ${ruleViolations} violation(s) in ${summary.totalCruised} modules`);

const edges = new Map(); // unit -> Map(unit -> example "from → to")
for (const m of modules) {
  if (!m.source.startsWith('src/')) continue;
  for (const d of m.dependencies ?? []) {
    if (!d.resolved.startsWith('src/') || d.resolved.startsWith('src/generated/')) continue;
    const [a, b] = [unit(m.source), unit(d.resolved)];
    if (a === b || (!all && !(a.startsWith('domains/') && b.startsWith('domains/')))) continue;
    if (!edges.has(a)) edges.set(a, new Map());
    if (!edges.get(a).has(b)) edges.get(a).set(b, `${m.source} → ${d.resolved}`);
  }
}
// Elementary cycles (Johnson-style DFS from each start node, only through nodes greater than it).
const nodes = [...new Set([...edges.keys(), ...[...edges.values()].flatMap((m) => [...m.keys()])])].sort();
const cycles = [];
for (const start of nodes) {
  const stack = [start];
  const onPath = new Set([start]);
  const walk = (n) => {
    for (const next of edges.get(n)?.keys() ?? []) {
      if (next === start) cycles.push([...stack]);
      else if (next > start && !onPath.has(next) && cycles.length < 500) {
        stack.push(next);
        onPath.add(next);
        walk(next);
        stack.pop();
        onPath.delete(next);
      }
    }
  };
  walk(start);
}
if (cycles.length === 0) {
  console.log(`domain cycles: none between ${all ? 'parts of src/' : 'domains'}`);
  process.exit(ruleViolations ? 1 : 0);
}
cycles.sort((a, b) => a.length - b.length || a.join().localeCompare(b.join()));
console.log(`domain cycles: ${cycles.length} cycle(s) between ${all ? 'parts of src/' : 'domains'}${cycles.length >= 500 ? ' (first 500)' : ''}:`);
for (const c of cycles) {
  console.log(`  ${[...c, c[0]].join(' → ')}`);
  if (c.length <= 3) c.forEach((n, i) => console.log(`      ${edges.get(n).get(c[(i + 1) % c.length])}`));
}
process.exit(1);
