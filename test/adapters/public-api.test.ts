import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as adapters from '../../src/adapters/public.js';

const root = path.resolve(import.meta.dirname, '../..');

/** Relative imports of a TypeScript file, resolved to source paths. */
function importsOf(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  return [...src.matchAll(/^(?:import|export)[^'"]*from\s+'(\.[^']+)'/gm)].map((m) => path.resolve(path.dirname(file), m[1]!.replace(/\.js$/, '.ts')));
}

describe('the public adapters entry (svc-payments/adapters)', () => {
  it('is the package export, with declarations built by npm run build', () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
    expect(pkg.exports['./adapters']).toEqual({ types: './dist/adapters/public.d.ts', default: './dist/adapters/public.js' });
    expect(pkg.scripts.build).toContain('tsconfig.adapters.json');
    expect(JSON.parse(readFileSync(path.join(root, 'tsconfig.adapters.json'), 'utf8')).files).toEqual(['src/adapters/public.ts']);
  });

  it('exports the runtime helpers adapter authors use', () => {
    expect(adapters.PAYOUT_STATUSES).toEqual(['PENDING', 'COMPLETED', 'FAILED', 'RETURNED']);
    expect(new adapters.RailError('x', false).retryable).toBe(false);
    expect(new adapters.FxRateUnavailableError('p', 'PAIR_UNSUPPORTED', false, 'x').retryable).toBe(false);
    expect(new adapters.AdapterConfigError('x')).toBeInstanceOf(Error);
    expect(adapters.ADAPTER_KINDS).toContain('rail');
    expect(adapters.ADAPTER_KINDS).toContain('bank-link');
    expect(new adapters.BankLinkError('INVALID_PUBLIC_TOKEN', 'x')).toMatchObject({ code: 'INVALID_PUBLIC_TOKEN', retryable: false });
    expect(adapters.adapterEnvName('my-bank')).toBe('MY_BANK');
  });

  // notifier/message.ts: the OTP text renderer (issue 28), a pure function over the notifier port's types.
  it('reaches only ports: nothing of the database, queues or domains', () => {
    const seen = new Set<string>();
    const queue = [path.join(root, 'src/adapters/public.ts')];
    while (queue.length) {
      const f = queue.pop()!;
      if (seen.has(f)) continue;
      seen.add(f);
      queue.push(...importsOf(f));
    }
    const outside = [...seen].map((f) => path.relative(root, f)).filter((f) => !/^src\/adapters\/(public|common|[a-z-]+\/port|notifier\/message)\.ts$/.test(f));
    expect(outside).toEqual([]);
  });
});

describe('the example adapter package', () => {
  it('type-checks (JSDoc, strict) against the public types, as an outside package would', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-example-types-'));
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          allowJs: true, checkJs: true, noEmit: true, strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2023', skipLibCheck: true, types: ['node'], typeRoots: [path.join(root, 'node_modules/@types')],
          // What `svc-payments/adapters` resolves to once the package is installed (its declarations come from this file).
          paths: { 'svc-payments/adapters': [path.join(root, 'src/adapters/public.ts')] },
        },
        files: [path.join(root, 'examples/my-rail-adapter/index.js')],
      }),
    );
    const r = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8', timeout: 120_000 });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
  });
});

describe('npm run adapter:test', () => {
  it('fails an adapter that breaks the contract, naming the broken guarantees', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-bad-adapter-'));
    const file = path.join(dir, 'bad-rail.mjs');
    writeFileSync(
      file,
      `let n = 0;
       export const id = 'bad-rail';
       export function create() {
         return {
           id,
           // A new reference on every submit (pays twice), and guesses FAILED for what it does not know.
           async submitPayout() { return { status: 'PENDING', reference: 'r' + n++ }; },
           async getPayoutStatus(reference) { return { status: 'FAILED', reference }; },
           async refundPayout(req) { return { status: 'COMPLETED', reference: 'f' + n++ }; },
         };
       }`,
    );
    const r = spawnSync(process.execPath, [path.join(root, 'scripts/adapter-test.mjs'), 'rail', file], { cwd: root, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' }, timeout: 120_000 });
    const out = `${r.stdout}${r.stderr}`;
    expect(r.status, out).not.toBe(0);
    expect(out).toMatch(/submitting twice with the same idempotency key returns the same reference and pays once/);
    expect(out).toMatch(/a reference the provider never issued reads as PENDING/);
    expect(out).toMatch(/an aborted signal is honoured/);
  });

  it('refuses an unknown kind or a missing module with usage', () => {
    const r = spawnSync(process.execPath, [path.join(root, 'scripts/adapter-test.mjs'), 'bank', './x.js'], { cwd: root, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/usage: npm run adapter:test -- <kind> <module>/);
  });
});
