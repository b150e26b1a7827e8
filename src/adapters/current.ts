import type { AppConfig } from '../config.js';
import type { Adapters } from './adapter-set.js';

/**
 * The adapters built for a process configuration (createDeps registers them). Lets the older
 * `xxxFor(config)` helpers in each kind's index.ts answer with the configured adapter.
 * Code with `deps` at hand should use `deps.adapters` instead.
 */
const byConfig = new WeakMap<AppConfig, Adapters>();

export function registerAdapters(config: AppConfig, adapters: Adapters): void {
  byConfig.set(config, adapters);
}

export function adaptersFor(config: AppConfig): Adapters | undefined {
  return byConfig.get(config);
}
