import type { Passkey, PasskeyDeviceType } from './PasskeyStore.js';

/**
 * A credential as the browser's WebAuthn JSON gives it (`PublicKeyCredential.toJSON()`, what
 * `@simplewebauthn/browser`'s `startRegistration` / `startAuthentication` return): the inbound
 * adapter checks its shape, the WebAuthn port its content.
 */
export interface WebAuthnCredentialJson {
  /** The credential id, base64url. */
  readonly id: string;
  readonly type: 'public-key';
  /** `clientDataJSON` and, for a registration, `attestationObject` (and `transports`); for a sign-in `authenticatorData`, `signature`, `userHandle`. */
  readonly response: Readonly<Record<string, unknown>>;
}

/** Options as WebAuthn JSON (`PublicKeyCredentialCreationOptionsJSON` / `…RequestOptionsJSON`), handed to the browser as they are. */
export type WebAuthnOptionsJson = Readonly<Record<string, unknown>>;

/** Whether the authenticator must verify its user (a PIN, a fingerprint) or only should. */
export type UserVerificationRequirement = 'required' | 'preferred';

/** What registration options are made of. */
export interface RegistrationOptionsRequest {
  readonly user: { readonly id: string; readonly name: string; readonly displayName: string };
  /** The challenge (text) the browser must have the authenticator sign; the same text comes back through `challengeOf`. */
  readonly challenge: string;
  /** The user's passkeys, which the authenticator must not register again. */
  readonly exclude: readonly Pick<Passkey, 'credentialId' | 'transports'>[];
  readonly userVerification: UserVerificationRequirement;
  /** How long the browser may wait for the user, in milliseconds. */
  readonly timeoutMs: number;
}

/** A new credential whose attestation verified: what is stored of it, and whether the user was verified. */
export interface RegisteredCredential {
  readonly credentialId: string;
  readonly publicKey: string;
  readonly counter: number;
  readonly transports: readonly string[];
  readonly deviceType: PasskeyDeviceType;
  readonly backedUp: boolean;
  readonly userVerified: boolean;
}

/** A sign-in assertion whose signature verified. */
export interface VerifiedAssertion {
  /** The authenticator's signature counter now (0 when it keeps none). */
  readonly counter: number;
  readonly backedUp: boolean;
  readonly userVerified: boolean;
}

/**
 * The WebAuthn ceremonies of one relying party (its RP id and the origins its front ends are
 * served from, fixed by the adapter's configuration). Promises: `verifyRegistration` and
 * `verifyAssertion` answer only for a credential made for this RP id, at one of those origins, by
 * the ceremony it is verified as, answering exactly `challenge`, with a valid attestation or
 * signature (an assertion by `passkey`'s public key) — `undefined` otherwise, never throwing for
 * bad input. They report user verification and the counter, and decide on neither: that is the
 * use cases' policy. `challengeOf` reads, without verifying anything, the challenge a credential
 * claims to answer.
 */
export interface WebAuthn {
  registrationOptions(request: RegistrationOptionsRequest): Promise<WebAuthnOptionsJson>;
  /** Options of a sign-in with a discoverable credential (no list of allowed credentials). */
  authenticationOptions(request: {
    readonly challenge: string;
    readonly userVerification: UserVerificationRequirement;
    readonly timeoutMs: number;
  }): Promise<WebAuthnOptionsJson>;
  challengeOf(credential: WebAuthnCredentialJson): string | undefined;
  verifyRegistration(credential: WebAuthnCredentialJson, challenge: string): Promise<RegisteredCredential | undefined>;
  verifyAssertion(
    credential: WebAuthnCredentialJson,
    challenge: string,
    passkey: Passkey,
  ): Promise<VerifiedAssertion | undefined>;
}
