#!/usr/bin/env node
// `npm run adapter:test -- <kind> <module>`: runs the contract suite of one adapter kind against an
// adapter module (a path, resolved against the current directory). No database or Redis needed.
// The adapter's settings come from the environment as in the service (ADAPTER_<ID>_*).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const KINDS = ['rail', 'kyc', 'fx', 'notifier', 'liveness', 'storage', 'beneficiary-check', 'stablecoin-issuer'];
const [kind, modulePath, ...rest] = process.argv.slice(2);
if (!kind || !modulePath || !KINDS.includes(kind)) {
  console.error(`usage: npm run adapter:test -- <kind> <module> [vitest options]\n  kind: ${KINDS.join(' | ')}\n  e.g. npm run adapter:test -- rail ./examples/my-rail-adapter/index.js`);
  process.exit(2);
}
const absolute = path.resolve(process.cwd(), modulePath);
if (!existsSync(absolute)) {
  console.error(`adapter module not found: ${absolute}`);
  process.exit(2);
}
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
const result = spawnSync(process.execPath, [vitest, 'run', '--config', path.join(root, 'test/contracts/vitest.config.ts'), ...rest], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, ADAPTER_TEST_KIND: kind, ADAPTER_TEST_MODULE: absolute },
});
process.exit(result.status ?? 1);
