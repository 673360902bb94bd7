// Copies every *.graphql file under src/ into dist/src/ (tsc copies only what it compiles), so the
// built service reads the same SDL files as the sources do.
import { cpSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ASSET = /\.graphql$/;

function copyAssets(from, to) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    if (entry.isDirectory()) copyAssets(source, join(to, entry.name));
    else if (ASSET.test(entry.name)) {
      mkdirSync(dirname(join(to, entry.name)), { recursive: true });
      cpSync(source, join(to, entry.name));
    }
  }
}

copyAssets('src', join('dist', 'src'));
