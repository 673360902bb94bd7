import { EMAIL_MAX_LENGTH, parseEmail } from '../../../domain/user/Email.js';
import { personNameProblem } from '../../../domain/user/PersonName.js';
import { isRoleName, ROLE_PATTERN } from '../../../domain/user/Role.js';
import { optional, Problem, required, rule, visibleText } from './fields.js';

/** NFKC-normalized, trimmed, lower-cased, then checked (no invisible characters either). */
export const EmailField = rule(
  'must be a valid e-mail address',
  (u) => {
    if (typeof u !== 'string') return undefined;
    const parsed = parseEmail(u);
    return 'email' in parsed ? parsed.email : new Problem(parsed.problem);
  },
  {
    type: 'string',
    format: 'email',
    maxLength: EMAIL_MAX_LENGTH,
    description: 'An e-mail address; trimmed and lower-cased',
    examples: ['ada@example.com'],
  },
);

const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

/**
 * A password of `min` to 72 bytes after trimming: bcrypt ignores bytes past 72, so longer is refused,
 * never cut.
 */
const passwordField = (min: number, description: string) =>
  rule(
    `must be ${min} to 72 bytes`,
    (u) => {
      if (typeof u !== 'string') return undefined;
      const password = u.trim();
      const bytes = byteLength(password);
      return bytes >= min && bytes <= 72 ? password : undefined;
    },
    {
      type: 'string',
      format: 'password',
      minLength: min,
      maxLength: 72,
      description,
      examples: ['correct horse battery'],
    },
  );

/** A new password: 8 to 72 bytes. */
export const NewPasswordField = passwordField(8, '8 to 72 bytes in UTF-8 once trimmed (bcrypt reads no further)');

/** A password presented to be checked: any non-empty one up to bcrypt's 72 bytes (a longer one could never be stored). */
export const PresentedPasswordField = passwordField(1, '1 to 72 bytes in UTF-8 once trimmed');

/** 1 to 100 characters once trimmed, nothing invisible, no control character (a line break included). */
export const NameField = visibleText(1, 100, 'Ada', personNameProblem);

export const TokenField = rule(
  'must be a non-empty string',
  (u) => (typeof u === 'string' && u.trim() !== '' ? u.trim() : undefined),
  {
    type: 'string',
    minLength: 1,
    description: 'A refresh token, as login, register or refresh gave it',
    examples: ['eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0eXAiOiJyZWZyZXNoIn0.c2lnbmF0dXJl'],
  },
);

/** A token from an e-mailed link: its shape is checked where it is redeemed (INVALID_TOKEN), only its type and size here. */
export const EmailedTokenField = rule(
  'must be a token of 1 to 200 characters',
  (u) => (typeof u === 'string' && u.trim() !== '' && u.trim().length <= 200 ? u.trim() : undefined),
  {
    type: 'string',
    minLength: 1,
    maxLength: 200,
    description: 'The `token` parameter of the link in the e-mail, as it is',
    examples: ['Qm9vdHN0cmFwU2VsZWN0b3I.dmVyaWZpZXItMzItYnl0ZXMtb2YtcmFuZG9tbmVzcy1oZXJl'],
  },
);

export const RoleField = rule(
  'must be a role name (lower-case letters, digits, _ and -)',
  (u) => {
    if (typeof u !== 'string') return undefined;
    const role = u.trim();
    return isRoleName(role) ? role : undefined;
  },
  {
    type: 'string',
    pattern: ROLE_PATTERN.source,
    description: 'A role the access policy knows',
    examples: ['moderator'],
  },
);

export const RegisterBody = {
  email: required(EmailField),
  password: required(NewPasswordField),
  first_name: required(NameField),
  last_name: required(NameField),
};

export const LoginBody = {
  email: required(EmailField),
  password: required(PresentedPasswordField),
};

export const RefreshBody = { refresh_token: required(TokenField) };

export const ForgotPasswordBody = { email: required(EmailField) };

export const ResetPasswordBody = { token: required(EmailedTokenField), password: required(NewPasswordField) };

export const VerifyEmailBody = { token: required(EmailedTokenField) };

export const ProfileUpdateBody = {
  first_name: optional(NameField),
  last_name: optional(NameField),
  email: optional(EmailField),
  password: optional(NewPasswordField),
  current_password: optional(PresentedPasswordField),
};

export const RoleChangeBody = { role: required(RoleField) };
