import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemorySessionStore } from '../../../src/adapters/outbound/memory/InMemorySessionStore.js';
import { sessionStoreContract } from './contracts/sessionStore.contract.js';

describe('SessionStore implementations', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-sessions-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  sessionStoreContract(
    'InMemorySessionStore',
    {
      setUp: async () => undefined,
      fresh: async () => ({ store: new InMemorySessionStore(), registerUser: async () => undefined }),
      tearDown: async () => undefined,
    },
    { survivesRestart: false, followsUser: false },
  );
});
