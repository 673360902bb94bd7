import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import {
  realFs,
  writeChangeSet,
  WriteFailedError,
  type ChangeSet,
  type WriterFs,
} from '../../../tools/generate/writer.js';

/** Every file and folder under `root` with its contents (folders as `/`), to compare a tree before and after. */
function snapshot(root: string): Record<string, string> {
  const tree: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        tree[`${relative(root, path)}/`] = '';
        walk(path);
      } else
        tree[relative(root, path)] =
          `${readFileSync(path, 'utf8')} (mode ${(statSync(path).mode & 0o777).toString(8)})`;
    }
  };
  walk(root);
  return tree;
}

/** The real file operations, except that the `n`th call of `operation` fails. */
function failingAt(operation: keyof WriterFs, n: number): WriterFs {
  let calls = 0;
  return {
    ...realFs,
    [operation]: (...args: unknown[]) => {
      calls += 1;
      if (calls === n) return Promise.reject(new Error(`disk full (fault on ${operation} #${n})`));
      return (realFs[operation] as (...a: unknown[]) => Promise<unknown>)(...args);
    },
  } as WriterFs;
}

const CHANGES: ChangeSet = {
  create: [
    { path: 'src/domain/invoice/Invoice.ts', contents: 'export class Invoice {}\n' },
    { path: 'src/domain/invoice/InvoiceRepository.ts', contents: 'export interface InvoiceRepository {}\n' },
    { path: 'src/main/modules/invoices.ts', contents: 'export const invoices = {};\n' },
  ],
  modify: [
    { path: 'src/main/modules/index.ts', contents: 'export const MODULES = [invoices];\n' },
    { path: 'policy/policy.csv', contents: 'p, user, /api/v1/invoices, GET\n' },
  ],
};

describe('generate: writing all or nothing', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'portico-writer-'));
    mkdirSync(join(root, 'src/domain/product'), { recursive: true });
    mkdirSync(join(root, 'src/main/modules'), { recursive: true });
    mkdirSync(join(root, 'policy'));
    writeFileSync(join(root, 'src/domain/product/Product.ts'), 'export class Product {}\n');
    writeFileSync(join(root, 'src/main/modules/index.ts'), 'export const MODULES = [];\n');
    writeFileSync(join(root, 'policy/policy.csv'), 'p, admin, /api/v1/*, .*\n');
    chmodSync(join(root, 'policy/policy.csv'), 0o640);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('creates the new files (and their folders) and changes the existing ones, keeping their mode', async () => {
    expect(await writeChangeSet(root, CHANGES)).to.deep.equal({ ok: true });
    for (const { path, contents } of [...CHANGES.create, ...CHANGES.modify])
      expect(readFileSync(join(root, path), 'utf8')).to.equal(contents);
    expect(statSync(join(root, 'policy/policy.csv')).mode & 0o777).to.equal(0o640);
    expect(Object.keys(snapshot(root)).filter((p) => p.includes('tmp'))).to.deep.equal([]);
  });

  it('refuses, writing nothing, when a file to create exists or a file to change does not', async () => {
    const before = snapshot(root);
    const result = await writeChangeSet(root, {
      create: [...CHANGES.create, { path: 'src/domain/product/Product.ts', contents: 'x' }],
      modify: [...CHANGES.modify, { path: 'src/main/wiring/container.ts', contents: 'x' }],
    });
    expect(result).to.deep.equal({
      ok: false,
      problems: [
        'src/domain/product/Product.ts: already exists (nothing was written)',
        'src/main/wiring/container.ts: does not exist, so it cannot be changed (nothing was written)',
      ],
    });
    expect(snapshot(root)).to.deep.equal(before);
  });

  it('refuses a path outside the project or written twice', async () => {
    const result = await writeChangeSet(root, {
      create: [
        { path: '../escape.ts', contents: 'x' },
        { path: '/etc/passwd', contents: 'x' },
        { path: 'a.ts', contents: 'x' },
      ],
      modify: [{ path: 'a.ts', contents: 'y' }],
    });
    expect(result.ok).to.equal(false);
    expect(result.ok ? [] : result.problems).to.include.members([
      '../escape.ts: not a path inside the project',
      '/etc/passwd: not a path inside the project',
      'a.ts: written twice by the generator',
    ]);
  });

  for (const [label, operation, n] of [
    ['the second rename into place (a new file already placed)', 'rename', 2],
    ['the fourth rename into place (a changed file)', 'rename', 4],
    ['the last rename into place (all but one placed)', 'rename', 5],
    ['staging the third file', 'writeFile', 3],
    ['making the new folder', 'mkdir', 1],
  ] as const) {
    it(`a failure half-way (${label}) leaves the tree exactly as it was`, async () => {
      const before = snapshot(root);
      let failure: unknown;
      try {
        await writeChangeSet(root, CHANGES, failingAt(operation, n));
      } catch (error) {
        failure = error;
      }
      expect(failure).to.be.instanceOf(WriteFailedError);
      expect((failure as WriteFailedError).leftovers).to.deep.equal([]);
      expect((failure as Error).message).to.match(/^writing \S+ failed \(disk full .*\); nothing was changed$/);
      expect(snapshot(root)).to.deep.equal(before);
    });
  }

  it('says what it could not undo when undoing fails too', async () => {
    let renames = 0;
    let unlinks = 0;
    const fs: WriterFs = {
      ...realFs,
      rename: (from, to) => (++renames === 2 ? Promise.reject(new Error('disk full')) : realFs.rename(from, to)),
      unlink: (path) => (++unlinks === 1 ? Promise.reject(new Error('busy')) : realFs.unlink(path)),
    };
    const failure = await writeChangeSet(root, CHANGES, fs).then(
      () => expect.fail('expected a failure'),
      (error: unknown) => error as WriteFailedError,
    );
    // The staged InvoiceRepository.ts could not be removed, so neither could its new folder.
    expect(failure.leftovers).to.have.length(2);
    expect(failure.leftovers[0]).to.match(/InvoiceRepository\.ts\.[^/]+\.generate-tmp$/);
    expect(failure.leftovers[1]).to.equal(join(root, 'src/domain/invoice'));
    expect(failure.message).to.match(
      /^writing src\/domain\/invoice\/InvoiceRepository\.ts failed \(disk full\); could not undo: /,
    );
    expect(readFileSync(join(root, 'policy/policy.csv'), 'utf8')).to.equal('p, admin, /api/v1/*, .*\n');
  });
});
