import type { OidcCode, OidcState } from '../../../application/ports/OidcHandoffStore.js';
import { OidcHandoffs } from '../oidcHandoffs.js';
import { InMemorySingleUseRecords } from './InMemorySingleUseRecords.js';

/** A browser sign-in's states and one-time codes in memory. */
export class InMemoryOidcHandoffStore extends OidcHandoffs {
  constructor() {
    super(new InMemorySingleUseRecords<OidcState>(), new InMemorySingleUseRecords<OidcCode>());
  }
}
