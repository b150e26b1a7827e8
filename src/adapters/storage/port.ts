import type { AdapterLifecycle, CallOptions } from '../common.js';

/**
 * Where document bytes live. Keys are ours (`<platform>/<document id>`); an implementation stores
 * bytes as given and returns them unchanged. Missing objects read as undefined; deleting a missing
 * object is not an error.
 */
export interface DocumentStorage extends AdapterLifecycle {
  readonly id: string;
  /** Overwrites an existing object under the same key. The key is the idempotency key. */
  put(key: string, bytes: Buffer, contentType: string, opts?: CallOptions): Promise<void>;
  get(key: string, opts?: CallOptions): Promise<Buffer | undefined>;
  delete(key: string, opts?: CallOptions): Promise<void>;
}
