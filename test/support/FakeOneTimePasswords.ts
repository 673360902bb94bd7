import type { OneTimePasswords } from '../../src/application/ports/OneTimePasswords.js';

const PERIOD_MS = 30_000;

/**
 * TOTP without crypto, for the use cases' tests: a secret's code at a time step is a number made
 * from both, so a test can compute the code of any step (`codeAt`) and the use cases' own rules —
 * the one-step window, each step once — are what is tested. (The real adapter is tested against
 * oathtool end to end.)
 */
export class FakeOneTimePasswords implements OneTimePasswords {
  private made = 0;

  newSecret(): string {
    this.made += 1;
    return `FAKESECRET${'A'.repeat(this.made)}`;
  }

  uri(secret: string, account: string, issuer: string): string {
    return `otpauth://totp/${encodeURIComponent(issuer)}:${encodeURIComponent(account)}?secret=${secret}`;
  }

  verify(secret: string, code: string, now: Date): number | undefined {
    const step = Math.floor(now.getTime() / PERIOD_MS);
    for (const candidate of [step - 1, step, step + 1]) if (this.codeOf(secret, candidate) === code) return candidate;
    return undefined;
  }

  /** The code of `secret` at the step of `at`, moved by `steps`. */
  codeAt(secret: string, at: Date, steps = 0): string {
    return this.codeOf(secret, Math.floor(at.getTime() / PERIOD_MS) + steps);
  }

  private codeOf(secret: string, step: number): string {
    return String((step * 7919 + secret.length * 104_729) % 1_000_000).padStart(6, '0');
  }
}
