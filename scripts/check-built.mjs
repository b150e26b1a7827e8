// `prestart` / `preworker`: the service runs from dist/ (built by `npm ci` or `npm run build`); say so
// clearly when it is missing, and warn when src/ has changed since the last build.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const entry = process.argv[2] ?? 'dist/server.js';
if (!existsSync(entry)) {
  console.error(`${entry} is missing: the service runs from the compiled dist/.\nBuild it once with \`npm run build\` (\`npm ci\` also builds), then start again.`);
  process.exit(1);
}

function newest(dir) {
  let latest = 0;
  let file = '';
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      const [t, f] = newest(p);
      if (t > latest) [latest, file] = [t, f];
    } else if (e.name.endsWith('.ts')) {
      const t = statSync(p).mtimeMs;
      if (t > latest) [latest, file] = [t, p];
    }
  }
  return [latest, file];
}

if (existsSync('src')) {
  const [srcTime, file] = newest('src');
  if (srcTime > statSync(entry).mtimeMs) {
    console.warn(`warning: ${file} is newer than ${entry}: dist/ may be stale. Run \`npm run build\` to rebuild.`);
  }
}
// The built server serves its docs from dist/openapi.json (written by the build from openapi.yaml).
if (existsSync('openapi.yaml') && existsSync('dist/openapi.json') && statSync('openapi.yaml').mtimeMs > statSync('dist/openapi.json').mtimeMs) {
  console.warn('warning: openapi.yaml is newer than dist/openapi.json: run `npm run build` to refresh the served docs.');
}
