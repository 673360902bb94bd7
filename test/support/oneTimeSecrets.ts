import { KeyedOneTimeSecrets } from '../../src/adapters/outbound/crypto/KeyedOneTimeSecrets.js';

/** The e-mailed tokens' key of the tests that build AccountLinks themselves (the service derives its own). */
export const TEST_SECRETS_KEY = 'a test key for e-mailed tokens, at least 32 bytes';

/** E-mailed tokens as the service makes them, under the tests' key. */
export const testOneTimeSecrets = (): KeyedOneTimeSecrets => new KeyedOneTimeSecrets(TEST_SECRETS_KEY);
