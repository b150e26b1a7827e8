/**
 * Where document bytes live. Keys are ours (`<platform>/<document id>`); an implementation stores
 * bytes as given and returns them unchanged. Missing objects read as undefined; deleting a missing
 * object is not an error.
 */
export interface DocumentStorage {
  readonly id: string;
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  get(key: string): Promise<Buffer | undefined>;
  delete(key: string): Promise<void>;
}
