import { generateSecret, generateURI, verifySync } from 'otplib';
import type { OneTimePasswords } from '../../../application/ports/OneTimePasswords.js';

const PERIOD_SECONDS = 30;
const CODE = /^\d{6}$/;

/**
 * RFC 6238 TOTP through otplib (HMAC-SHA-1, 6 digits, 30-second steps — what every authenticator app
 * reads from a bare `otpauth://` URI): 160-bit base32 secrets, and codes accepted one step either side
 * of now (clocks drift, codes are typed late). The step a code matched is answered, so the caller can
 * refuse it — and every earlier one — the next time.
 */
export class OtplibOneTimePasswords implements OneTimePasswords {
  newSecret(): string {
    return generateSecret({ length: 20 });
  }

  uri(secret: string, account: string, issuer: string): string {
    return generateURI({ secret, label: account, issuer });
  }

  verify(secret: string, code: string, now: Date): number | undefined {
    if (typeof code !== 'string' || !CODE.test(code)) return undefined;
    try {
      const epoch = Math.floor(now.getTime() / 1000);
      const result = verifySync({ secret, token: code, epoch, epochTolerance: PERIOD_SECONDS });
      return result.valid ? Math.floor(epoch / PERIOD_SECONDS) + result.delta : undefined;
    } catch {
      return undefined; // a secret otplib cannot read: no code matches it
    }
  }
}
