import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { DocumentStorage } from '../port.js';

/** Files under one directory (DOCUMENT_STORAGE_DIR). Writes go to a temporary name first, so a reader never sees half a file. */
export function localStorage(dir: string): DocumentStorage {
  const root = path.resolve(dir);
  const fileOf = (key: string) => {
    if (!/^[A-Za-z0-9._/-]+$/.test(key) || key.split('/').some((s) => s === '' || s === '.' || s === '..')) throw new Error(`invalid storage key ${key}`);
    return path.join(root, key);
  };
  return {
    id: 'local',
    async put(key, bytes, _contentType, callOpts) {
      callOpts?.signal?.throwIfAborted();
      const file = fileOf(key);
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      await writeFile(tmp, bytes, { mode: 0o600 });
      await rename(tmp, file);
    },
    async get(key, callOpts) {
      callOpts?.signal?.throwIfAborted();
      try {
        return await readFile(fileOf(key));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
    },
    async delete(key, callOpts) {
      callOpts?.signal?.throwIfAborted();
      await rm(fileOf(key), { force: true });
    },
  };
}
