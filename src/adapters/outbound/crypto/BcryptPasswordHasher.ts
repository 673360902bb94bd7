import bcrypt from 'bcrypt';
import type { PasswordHasher } from '../../../application/ports/PasswordHasher.js';

/** bcrypt at the configured cost (`auth.bcrypt_cost`), on libuv's thread pool. */
export class BcryptPasswordHasher implements PasswordHasher {
  constructor(private readonly cost: number) {}

  hash(password: string): Promise<string> {
    return bcrypt.hash(password, this.cost);
  }

  async verify(password: string, hash: string): Promise<boolean> {
    try {
      return await bcrypt.compare(password, hash);
    } catch {
      return false;
    }
  }
}
