// `npm run bench:readme`: rewrites the figures of README.md's Performance section (between the
// `<!-- bench:start -->` and `<!-- bench:end -->` markers) from bench/results/latest.json.
import { readFileSync, writeFileSync } from 'node:fs';

const results = JSON.parse(readFileSync(new URL('./results/latest.json', import.meta.url), 'utf8'));
const readmeUrl = new URL('../README.md', import.meta.url);
const readme = readFileSync(readmeUrl, 'utf8');
const num = (v, d = 0) => (v === undefined || v === null || Number.isNaN(v) ? '' : Number(v).toFixed(d));
const ms = (v) => (v === undefined || v === null ? '' : Number(v) < 10 ? num(v, 1) : num(v));
const s = results.settings;
const lines = [
  `Last run: ${results.startedAt.slice(0, 16).replace('T', ' ')} UTC, ${s.durationS} s per scenario, ${s.connections} connections, ${results.machine.cpus} CPUs (load average ${results.machine.loadAverageAtEnd.map((l) => l.toFixed(1)).join(' ')} at the end), Node ${results.machine.node}. ${results.pass ? 'Every target met.' : 'Some targets missed.'}`,
  '',
  '| Scenario | req/s | p50 ms | p99 ms | Errors | Ratio | Target | Result |',
  '| --- | ---: | ---: | ---: | ---: | --- | --- | --- |',
  ...results.rows.map((r) =>
    `| ${r.group === 'ceiling' ? 'ceiling: ' : r.group === 'start-up' ? 'start-up: ' : ''}${r.scenario} | ${num(r.rps)} | ${r.group === 'start-up' ? `${r.p50} (ready)` : ms(r.p50)} | ${ms(r.p99)} | ${r.errors ?? ''} | ${r.ratio === undefined ? '' : `${r.ratio.toFixed(3)}× ${r.ratioTo}`} | ${r.target === 'ceiling' ? '' : (r.target ?? '')} | ${r.pass === undefined ? '' : r.pass ? 'PASS' : 'FAIL'} |`,
  ),
];
const notes = results.rows.filter((r) => r.notes?.length).map((r) => `- ${r.scenario}: ${r.notes.join('; ')}`);
const block = ['<!-- bench:start -->', ...lines, '', ...notes, '<!-- bench:end -->'].join('\n');
const re = /<!-- bench:start -->[\s\S]*<!-- bench:end -->/;
if (!re.test(readme)) throw new Error('README.md has no <!-- bench:start --> … <!-- bench:end --> block');
writeFileSync(readmeUrl, readme.replace(re, block));
console.log('README.md: Performance figures updated from bench/results/latest.json');
