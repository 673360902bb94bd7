import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryEmailTokenStore } from '../../../src/adapters/outbound/memory/InMemoryEmailTokenStore.js';
import { emailTokenStoreContract } from './contracts/emailTokenStore.contract.js';

describe('EmailTokenStore implementations', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-email-tokens-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  emailTokenStoreContract(
    'InMemoryEmailTokenStore',
    {
      setUp: async () => undefined,
      fresh: async () => ({ store: new InMemoryEmailTokenStore(), registerUser: async () => undefined }),
      tearDown: async () => undefined,
    },
    { survivesRestart: false, followsUser: false },
  );
});
