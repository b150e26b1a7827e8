// Preloaded (NODE_OPTIONS=--import) into the API and the worker by BENCH_PROFILE=1: records a V8 CPU
// profile from start to exit and writes it to $BENCH_PROFILE_DIR/<pid>.cpuprofile (open it in Chrome's
// DevTools or speedscope). --cpu-prof itself is not allowed in NODE_OPTIONS.
import { Session } from 'node:inspector';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const dir = process.env.BENCH_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 200 });
  session.post('Profiler.start');
  let written = false;
  const write = () => {
    if (written) return;
    written = true;
    session.post('Profiler.stop', (err, { profile } = {}) => {
      if (err || !profile) return;
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `${path.basename(process.argv[1] ?? "node", ".js")}-${process.pid}.cpuprofile`), JSON.stringify(profile));
    });
  };
  // The inspector answers synchronously, so the profile is written even from the exit handler.
  process.on('exit', write);
}
