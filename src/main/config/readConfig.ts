import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig, type ConfigResult } from './loadConfig.js';

/** Loads configuration from the process environment and files relative to the working directory. */
export function readConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): ConfigResult {
  return loadConfig({
    env,
    readFile: (path) => {
      try {
        return readFileSync(resolve(cwd, path), 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
  });
}
