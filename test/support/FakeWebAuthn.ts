import type { Passkey } from '../../src/application/ports/PasskeyStore.js';
import type {
  RegisteredCredential,
  RegistrationOptionsRequest,
  UserVerificationRequirement,
  VerifiedAssertion,
  WebAuthn,
  WebAuthnCredentialJson,
  WebAuthnOptionsJson,
} from '../../src/application/ports/WebAuthn.js';

/** What a fake authenticator puts in a credential's `response` (a real one signs it; this one names its key). */
interface FakeResponse {
  readonly challenge: string;
  readonly origin: string;
  readonly ceremony: 'create' | 'get';
  readonly userVerified: boolean;
  readonly counter: number;
  /** The public key it claims to sign with: an assertion verifies when it is the passkey's. */
  readonly publicKey: string;
}

export const FAKE_ORIGIN = 'https://app.example.com';

/**
 * A WebAuthn port with no cryptography: credentials are plain records a test makes with
 * `credential` and `assertion`, and verification checks what the real adapter's library checks
 * (ceremony, challenge, origin, the key) on those records — so the use cases' own rules (single-use
 * challenges, the counter, user verification) are tested without a browser.
 */
export class FakeWebAuthn implements WebAuthn {
  /** The requests options were made for, latest last. */
  readonly registrations: RegistrationOptionsRequest[] = [];

  async registrationOptions(request: RegistrationOptionsRequest): Promise<WebAuthnOptionsJson> {
    await Promise.resolve();
    this.registrations.push(request);
    return {
      challenge: request.challenge,
      user: request.user,
      excludeCredentials: request.exclude.map((passkey) => ({ id: passkey.credentialId })),
      userVerification: request.userVerification,
    };
  }

  async authenticationOptions(request: {
    readonly challenge: string;
    readonly userVerification: UserVerificationRequirement;
  }): Promise<WebAuthnOptionsJson> {
    await Promise.resolve();
    return { challenge: request.challenge, userVerification: request.userVerification };
  }

  challengeOf(credential: WebAuthnCredentialJson): string | undefined {
    const challenge = (credential.response as Partial<FakeResponse>).challenge;
    return typeof challenge === 'string' ? challenge : undefined;
  }

  async verifyRegistration(
    credential: WebAuthnCredentialJson,
    challenge: string,
  ): Promise<RegisteredCredential | undefined> {
    await Promise.resolve();
    const response = credential.response as unknown as FakeResponse;
    if (!this.checks(response, 'create', challenge)) return undefined;
    return {
      credentialId: credential.id,
      publicKey: response.publicKey,
      counter: response.counter,
      transports: ['internal'],
      deviceType: 'singleDevice',
      backedUp: false,
      userVerified: response.userVerified,
    };
  }

  async verifyAssertion(
    credential: WebAuthnCredentialJson,
    challenge: string,
    passkey: Passkey,
  ): Promise<VerifiedAssertion | undefined> {
    await Promise.resolve();
    const response = credential.response as unknown as FakeResponse;
    if (!this.checks(response, 'get', challenge) || response.publicKey !== passkey.publicKey) return undefined;
    return { counter: response.counter, backedUp: false, userVerified: response.userVerified };
  }

  private checks(response: FakeResponse, ceremony: FakeResponse['ceremony'], challenge: string): boolean {
    return response.ceremony === ceremony && response.challenge === challenge && response.origin === FAKE_ORIGIN;
  }
}

/** A fake authenticator's answer to options (`challenge` read from them). */
export function fakeCredential(
  options: WebAuthnOptionsJson,
  ceremony: 'create' | 'get',
  credentialId: string,
  answer: Partial<Omit<FakeResponse, 'challenge' | 'ceremony'>> = {},
): WebAuthnCredentialJson {
  const response: FakeResponse = {
    challenge: options.challenge as string,
    ceremony,
    origin: FAKE_ORIGIN,
    userVerified: true,
    counter: 0,
    publicKey: `key-of-${credentialId}`,
    ...answer,
  };
  return { id: credentialId, type: 'public-key', response: { ...response } };
}
