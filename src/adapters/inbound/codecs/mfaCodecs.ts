import { required, rule } from './fields.js';
import { PresentedPasswordField } from './userCodecs.js';

/** A TOTP code or a recovery code as typed: checked where it is used, only its type and size here. */
export const SecondFactorCodeField = rule(
  'must be a code of 1 to 32 characters',
  (u) => (typeof u === 'string' && u.trim() !== '' && u.trim().length <= 32 ? u.trim() : undefined),
  {
    type: 'string',
    minLength: 1,
    maxLength: 32,
    description:
      "Six digits from the authenticator app, or (at sign-in) one of the recovery codes, e.g. 'k7mp-2xqr-9fhd'",
    examples: ['492039'],
  },
);

/** An `mfa_token` as login answered it: its shape is checked where it is redeemed (INVALID_TOKEN). */
export const MfaTokenField = rule(
  'must be a token of 1 to 200 characters',
  (u) => (typeof u === 'string' && u.trim() !== '' && u.trim().length <= 200 ? u.trim() : undefined),
  {
    type: 'string',
    minLength: 1,
    maxLength: 200,
    description: 'The `mfa_token` of the login answer',
    examples: ['Qm9vdHN0cmFwU2VsZWN0b3I.dmVyaWZpZXItMzItYnl0ZXMtb2YtcmFuZG9tbmVzcy1oZXJl'],
  },
);

export const CurrentPasswordBody = { current_password: required(PresentedPasswordField) };

export const TotpConfirmBody = { code: required(SecondFactorCodeField) };

export const SecondFactorBody = { mfa_token: required(MfaTokenField), code: required(SecondFactorCodeField) };
