import { randomUUID } from 'node:crypto';
import type { IdGenerator } from '../../../application/ports/IdGenerator.js';

/** Random (v4) UUIDs from the platform's CSPRNG. */
export class UuidGenerator implements IdGenerator {
  newId(): string {
    return randomUUID();
  }
}
