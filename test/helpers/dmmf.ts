/**
 * The DMMF of prisma/schema (or the file prisma.config.ts names), from the schema Wasm module bundled
 * in the installed `prisma` package: the very parser `prisma generate` runs, offline, no engine binary.
 * Used by test/platform/schema-drift.test.ts and test/platform/tenancy.test.ts.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import prismaConfig from '../../prisma.config.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The schema `prisma generate` reads: a file, or a folder of *.prisma files (prisma.config.ts). */
export const SCHEMA_PATH = path.resolve(ROOT, prismaConfig.schema ?? 'prisma/schema.prisma');
// ---------------------------------------------------------------------------------------------
// DMMF (the subset this test reads)

export interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: 'scalar' | 'object' | 'enum' | 'unsupported';
  isList: boolean;
  isRequired: boolean;
  isUnique: boolean;
  isId: boolean;
  isUpdatedAt?: boolean;
  hasDefaultValue: boolean;
  default?: unknown;
  type: string;
  nativeType?: [string, string[]] | null;
  relationName?: string;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
  relationOnUpdate?: string;
}
export interface DmmfModel {
  name: string;
  dbName: string | null;
  schema?: string | null;
  fields: DmmfField[];
  primaryKey: { name: string | null; fields: string[] } | null;
  uniqueFields: string[][];
  uniqueIndexes: Array<{ name: string | null; fields: string[] }>;
}
export interface DmmfIndex {
  model: string;
  type: 'id' | 'unique' | 'normal' | 'fulltext';
  name?: string;
  dbName?: string;
  algorithm?: string;
  fields: Array<{ name: string; sortOrder?: 'asc' | 'desc' }>;
}
export interface DmmfEnum {
  name: string;
  dbName?: string | null;
  values: Array<{ name: string; dbName: string | null }>;
}
export interface Datamodel {
  models: DmmfModel[];
  enums: DmmfEnum[];
  indexes: DmmfIndex[];
}

/** The WebAssembly API (tsconfig's lib has no DOM, and @types/node declares no WebAssembly values). */
const Wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
interface WasmApi {
  Module: { new (bytes: Uint8Array): object; imports(module: object): Array<{ module: string; name: string }> };
  Instance: new (module: object, imports: object) => { exports: any };
}

/**
 * Minimal wasm-bindgen glue for `get_dmmf` of prisma's bundled prisma_schema_build_bg.wasm (the
 * same calls @prisma/prisma-schema-wasm's generated JS makes). An unknown import means prisma was
 * upgraded to a Wasm build with a different ABI: this throws rather than guess.
 */
export function loadDatamodel(schema: string | Array<[string, string]>): Datamodel {
  const require = createRequire(import.meta.url);
  const wasmPath = path.join(path.dirname(require.resolve('prisma/package.json')), 'build/prisma_schema_build_bg.wasm');
  const module = new Wasm.Module(readFileSync(wasmPath));
  let w: any;
  let mem: Uint8Array | null = null;
  const bytes = () => (mem === null || mem.byteLength === 0 ? (mem = new Uint8Array(w.memory.buffer)) : mem);
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true, fatal: true });
  const str = (ptr: number, len: number) => decoder.decode(bytes().subarray(ptr >>> 0, (ptr >>> 0) + len));
  let panic = '';
  const imports: Record<string, (...a: any[]) => unknown> = {};
  for (const { name } of Wasm.Module.imports(module)) {
    if (name.startsWith('__wbg_Error_')) imports[name] = (p: number, l: number) => new Error(str(p, l));
    else if (name.startsWith('__wbg___wbindgen_throw_')) imports[name] = (p: number, l: number) => { throw new Error(str(p, l)); };
    else if (name.startsWith('__wbg_set_message_')) imports[name] = (p: number, l: number) => { panic = str(p, l); };
    else if (name === '__wbindgen_init_externref_table') {
      imports[name] = () => {
        const t = w.__wbindgen_externrefs;
        const base = t.grow(4);
        t.set(0, undefined);
        t.set(base + 0, undefined);
        t.set(base + 1, null);
        t.set(base + 2, true);
        t.set(base + 3, false);
      };
    } else throw new Error(`${wasmPath} imports ${name}, unknown to this test's loader: update loadDatamodel for the new prisma version`);
  }
  w = new Wasm.Instance(module, { __wbindgen_placeholder__: imports }).exports;
  w.__wbindgen_start();
  const input = new TextEncoder().encode(JSON.stringify({ prismaSchema: schema, noColor: true }));
  const ptr = w.__wbindgen_malloc(input.length, 1) >>> 0;
  bytes().subarray(ptr, ptr + input.length).set(input);
  let ret: number[];
  try {
    ret = w.get_dmmf(ptr, input.length);
  } catch (err) {
    throw new Error(`get_dmmf panicked: ${panic || String(err)}`);
  }
  const [outPtr, outLen, errRef, isErr] = ret as [number, number, number, number];
  if (isErr) {
    const err = w.__wbindgen_externrefs.get(errRef);
    w.__externref_table_dealloc(errRef);
    throw err instanceof Error ? err : new Error(String(err));
  }
  const json = str(outPtr, outLen);
  w.__wbindgen_free(outPtr, outLen, 1);
  const datamodel = JSON.parse(json).datamodel as Datamodel;
  if (!Array.isArray(datamodel?.models) || !Array.isArray(datamodel.enums) || !Array.isArray(datamodel.indexes)) {
    throw new Error('get_dmmf returned a datamodel without models/enums/indexes: the DMMF format changed, update this test');
  }
  return datamodel;
}

export function readSchema(): string | Array<[string, string]> {
  if (!statSync(SCHEMA_PATH).isDirectory()) return readFileSync(SCHEMA_PATH, 'utf8');
  return readdirSync(SCHEMA_PATH, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.prisma'))
    .sort()
    .map((f) => [path.join(SCHEMA_PATH, f), readFileSync(path.join(SCHEMA_PATH, f), 'utf8')]);
}


/** The parsed datamodel of the project schema. */
export function projectDatamodel(): Datamodel {
  return loadDatamodel(readSchema());
}
