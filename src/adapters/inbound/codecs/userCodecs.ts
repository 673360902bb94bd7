import { EMAIL_MAX_LENGTH, parseEmail } from '../../../domain/user/Email.js';
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
  { type: 'string', format: 'email', maxLength: EMAIL_MAX_LENGTH, description: 'An e-mail address; trimmed and lower-cased', examples: ['ada@example.com'] },
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
    { type: 'string', format: 'password', minLength: min, maxLength: 72, description, examples: ['correct horse battery'] },
  );

/** A new password: 8 to 72 bytes. */
export const NewPasswordField = passwordField(8, '8 to 72 bytes in UTF-8 once trimmed (bcrypt reads no further)');

/** A password presented to be checked: any non-empty one up to bcrypt's 72 bytes (a longer one could never be stored). */
export const PresentedPasswordField = passwordField(1, '1 to 72 bytes in UTF-8 once trimmed');

export const NameField = visibleText(1, 100, 'Ada');

export const TokenField = rule('must be a non-empty string', (u) => (typeof u === 'string' && u.trim() !== '' ? u.trim() : undefined), {
  type: 'string',
  minLength: 1,
  description: 'A refresh token, as login, register or refresh gave it',
  examples: ['eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0eXAiOiJyZWZyZXNoIn0.c2lnbmF0dXJl'],
});

export const RoleField = rule(
  'must be a role name (lower-case letters, digits, _ and -)',
  (u) => {
    if (typeof u !== 'string') return undefined;
    const role = u.trim();
    return isRoleName(role) ? role : undefined;
  },
  { type: 'string', pattern: ROLE_PATTERN.source, description: 'A role the access policy knows', examples: ['moderator'] },
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

export const ProfileUpdateBody = {
  first_name: optional(NameField),
  last_name: optional(NameField),
  email: optional(EmailField),
  password: optional(NewPasswordField),
  current_password: optional(PresentedPasswordField),
};

export const RoleChangeBody = { role: required(RoleField) };
