/**
 * How a user proved who they are, as an access token's `amr` claim names it (RFC 8176): `pwd` a
 * password, `otp` a one-time code (TOTP or a recovery code), `hwk` a key held in hardware (a
 * passkey), `fed` a sign-in federated from an identity provider.
 */
export type SignInMethod = 'pwd' | 'otp' | 'hwk' | 'fed';

export const SIGN_IN_METHODS: readonly SignInMethod[] = ['pwd', 'otp', 'hwk', 'fed'];

export const isSignInMethod = (value: unknown): value is SignInMethod =>
  typeof value === 'string' && (SIGN_IN_METHODS as readonly string[]).includes(value);

/** The methods of a sign-in, each once, in the order of SIGN_IN_METHODS (so two equal sets read the same). */
export function signInMethods(...methods: readonly SignInMethod[]): readonly SignInMethod[] {
  return SIGN_IN_METHODS.filter((method) => methods.includes(method));
}
