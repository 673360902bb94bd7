import { optional, required, rule } from './fields.js';

/** Text of 1 to `max` characters (trimmed); what it holds is checked where it is used. */
const bounded = (message: string, max: number, description: string, example: string) =>
  rule(message, (u) => (typeof u === 'string' && u.trim() !== '' && u.trim().length <= max ? u.trim() : undefined), {
    type: 'string',
    minLength: 1,
    maxLength: max,
    description,
    examples: [example],
  });

/** The one-time `code` a front end was sent back with: its shape is checked where it is redeemed (INVALID_TOKEN). */
export const OidcCodeField = bounded(
  'must be a code of 1 to 200 characters',
  200,
  'The one-time `code` the front end was sent back with after signing in at the provider (60 s, single use)',
  'Qm9vdHN0cmFwU2VsZWN0b3I.dmVyaWZpZXItMzItYnl0ZXMtb2YtcmFuZG9tbmVzcy1oZXJl',
);

/** An ID token a native client got from the provider: checked by the provider's keys where it is used. */
export const IdTokenField = bounded(
  'must be an ID token of 1 to 20000 characters',
  20_000,
  'The ID token (a signed JWT) the native client got from the provider for this service’s client id',
  'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJl',
);

/** The nonce a native client sent the provider, to be found in the ID token. */
export const NonceField = bounded(
  'must be a nonce of 1 to 500 characters',
  500,
  'The nonce the client sent to the provider: when given, the ID token must carry it',
  'n-0S6_WzA2Mj',
);

export const OidcExchangeBody = { code: required(OidcCodeField) };

export const IdTokenBody = { id_token: required(IdTokenField), nonce: optional(NonceField) };
