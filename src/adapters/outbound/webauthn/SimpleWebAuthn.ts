import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Passkey } from '../../../application/ports/PasskeyStore.js';
import type {
  RegisteredCredential,
  RegistrationOptionsRequest,
  UserVerificationRequirement,
  VerifiedAssertion,
  WebAuthn,
  WebAuthnCredentialJson,
  WebAuthnOptionsJson,
} from '../../../application/ports/WebAuthn.js';

/** The relying party: its RP id (a host name) and the origins its front ends are served from. */
export interface RelyingParty {
  readonly rpId: string;
  readonly rpName: string;
  readonly origins: readonly string[];
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** The WebAuthn challenge of a challenge text: its UTF-8 bytes, base64url (as `generate…Options` encode a string). */
const encoded = (challenge: string): string => Buffer.from(challenge, 'utf8').toString('base64url');

/**
 * The WebAuthn ceremonies over `@simplewebauthn/server` (ADR 0040). Options ask for no
 * attestation (`none`: any authenticator, nothing about the device kept) and, for registration, a
 * discoverable credential. Verification is the library's — client data type, challenge, origin
 * among `origins`, RP id hash, user presence, attestation or signature — with its user-verification
 * and counter rules switched off: whether the user was verified and whether the counter advanced
 * are reported, and the use cases decide (the stored counter is not given to the library).
 */
export class SimpleWebAuthn implements WebAuthn {
  constructor(private readonly party: RelyingParty) {}

  registrationOptions(request: RegistrationOptionsRequest): Promise<WebAuthnOptionsJson> {
    return generateRegistrationOptions({
      rpName: this.party.rpName,
      rpID: this.party.rpId,
      userName: request.user.name,
      userDisplayName: request.user.displayName,
      userID: new Uint8Array(Buffer.from(request.user.id, 'utf8')),
      challenge: request.challenge,
      timeout: request.timeoutMs,
      attestationType: 'none',
      excludeCredentials: request.exclude.map((passkey) => ({
        id: passkey.credentialId,
        transports: [...passkey.transports] as AuthenticatorTransport[],
      })),
      authenticatorSelection: {
        residentKey: 'required',
        requireResidentKey: true,
        userVerification: request.userVerification,
      },
    }) as unknown as Promise<WebAuthnOptionsJson>;
  }

  authenticationOptions(request: {
    readonly challenge: string;
    readonly userVerification: UserVerificationRequirement;
    readonly timeoutMs: number;
  }): Promise<WebAuthnOptionsJson> {
    return generateAuthenticationOptions({
      rpID: this.party.rpId,
      challenge: request.challenge,
      timeout: request.timeoutMs,
      userVerification: request.userVerification,
      allowCredentials: [],
    }) as unknown as Promise<WebAuthnOptionsJson>;
  }

  challengeOf(credential: WebAuthnCredentialJson): string | undefined {
    try {
      const clientData = credential.response.clientDataJSON;
      if (typeof clientData !== 'string' || !BASE64URL.test(clientData)) return undefined;
      const parsed: unknown = JSON.parse(Buffer.from(clientData, 'base64url').toString('utf8'));
      const challenge = (parsed as { challenge?: unknown } | null)?.challenge;
      if (typeof challenge !== 'string' || !BASE64URL.test(challenge)) return undefined;
      return Buffer.from(challenge, 'base64url').toString('utf8');
    } catch {
      return undefined;
    }
  }

  async verifyRegistration(
    credential: WebAuthnCredentialJson,
    challenge: string,
  ): Promise<RegisteredCredential | undefined> {
    try {
      const { verified, registrationInfo } = await verifyRegistrationResponse({
        response: {
          ...credential,
          rawId: credential.id,
          clientExtensionResults: {},
        } as unknown as RegistrationResponseJSON,
        expectedChallenge: encoded(challenge),
        expectedOrigin: [...this.party.origins],
        expectedRPID: this.party.rpId,
        requireUserVerification: false,
      });
      if (!verified) return undefined;
      return {
        credentialId: registrationInfo.credential.id,
        publicKey: Buffer.from(registrationInfo.credential.publicKey).toString('base64url'),
        counter: registrationInfo.credential.counter,
        transports: registrationInfo.credential.transports ?? [],
        deviceType: registrationInfo.credentialDeviceType,
        backedUp: registrationInfo.credentialBackedUp,
        userVerified: registrationInfo.userVerified,
      };
    } catch {
      return undefined;
    }
  }

  async verifyAssertion(
    credential: WebAuthnCredentialJson,
    challenge: string,
    passkey: Passkey,
  ): Promise<VerifiedAssertion | undefined> {
    try {
      const { verified, authenticationInfo } = await verifyAuthenticationResponse({
        response: {
          ...credential,
          rawId: credential.id,
          clientExtensionResults: {},
        } as unknown as AuthenticationResponseJSON,
        expectedChallenge: encoded(challenge),
        expectedOrigin: [...this.party.origins],
        expectedRPID: this.party.rpId,
        credential: {
          id: passkey.credentialId,
          publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
          // The counter rule is the use case's: the library is given none to compare with.
          counter: 0,
          transports: [...passkey.transports] as AuthenticatorTransport[],
        },
        requireUserVerification: false,
      });
      if (!verified || authenticationInfo.credentialID !== passkey.credentialId) return undefined;
      return {
        counter: authenticationInfo.newCounter,
        backedUp: authenticationInfo.credentialBackedUp,
        userVerified: authenticationInfo.userVerified,
      };
    } catch {
      return undefined;
    }
  }
}
