// `prepare` (run by `npm ci` / `npm install` after postinstall's `prisma generate`): builds dist/ once, so
// that `npm start` and `npm run worker` start the compiled service at once. Skipped where the sources are
// not there yet (the Dockerfile's dependency layer installs before copying src/ and runs `npm run build`
// itself).
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

if (!existsSync('src/server.ts') || !existsSync('tsconfig.build.json')) {
  console.log('prepare: no sources here yet; skipping the build (run `npm run build` once they are).');
} else if (!existsSync('node_modules/typescript')) {
  // `npm ci --omit=dev`: no compiler; the image builds in a stage with dev dependencies.
  console.log('prepare: TypeScript is not installed (dev dependencies omitted); skipping the build.');
} else {
  execSync('npm run build', { stdio: 'inherit' });
}
