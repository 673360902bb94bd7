import { Problem, required, optional, rule, visibleText, type FieldCodec } from './fields.js';
import type { JsonSchema } from './jsonSchema.js';

/** The longest base64url member of a credential the service reads (an attestation with certificates fits). */
const MAX_MEMBER = 65_536;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

const base64url = (description: string, maxLength = MAX_MEMBER): JsonSchema => ({
  type: 'string',
  pattern: '^[A-Za-z0-9_-]+$',
  minLength: 1,
  maxLength,
  description,
});

const isBase64url = (u: unknown, maxLength = MAX_MEMBER): u is string =>
  typeof u === 'string' && u.length >= 1 && u.length <= maxLength && BASE64URL.test(u);

/** A credential id as the browser gives it: base64url (WebAuthn allows up to 1023 bytes). */
export const CredentialIdField = rule(
  'must be a base64url credential id of 1 to 1400 characters',
  (u) => (isBase64url(u, 1400) ? u : undefined),
  { ...base64url('The credential id (base64url), as the browser gives it', 1400), examples: ['q0v2ZsYH3aW1'] },
);

export const CredentialTypeField = rule('must be "public-key"', (u) => (u === 'public-key' ? u : undefined), {
  const: 'public-key',
  description: 'Always `public-key`',
});

/** A passkey's name for people. */
export const PasskeyNameField = visibleText(1, 100, 'MacBook Touch ID');

/**
 * The `response` member of a credential: an object whose named members are base64url text
 * (`optionalMembers` may be absent or null); the members read are kept, the rest dropped.
 */
function responseField(
  what: string,
  members: Readonly<Record<string, string>>,
  optionalMembers: Readonly<Record<string, string>> = {},
  withTransports = false,
): FieldCodec<Readonly<Record<string, unknown>>> {
  const names = Object.keys(members);
  return rule<Readonly<Record<string, unknown>>>(
    `must be an object with ${names.join(', ')} as base64url text`,
    (u) => {
      if (typeof u !== 'object' || u === null || Array.isArray(u)) return undefined;
      const source = u as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const name of names) {
        if (!isBase64url(source[name])) return new Problem(`must have ${name} as base64url text`);
        out[name] = source[name];
      }
      for (const name of Object.keys(optionalMembers)) {
        const value = source[name];
        if (value === undefined || value === null) continue;
        if (!isBase64url(value)) return new Problem(`must have ${name} as base64url text, or none`);
        out[name] = value;
      }
      if (withTransports && source.transports !== undefined) {
        const transports = source.transports;
        if (
          !Array.isArray(transports) ||
          transports.length > 10 ||
          !transports.every((t) => typeof t === 'string' && /^[a-z-]{1,20}$/.test(t))
        ) {
          return new Problem('must have transports as a list of transport names');
        }
        out.transports = transports;
      }
      return out;
    },
    {
      type: 'object',
      description: what,
      properties: {
        ...Object.fromEntries(Object.entries(members).map(([name, text]) => [name, base64url(text)])),
        ...Object.fromEntries(
          Object.entries(optionalMembers).map(([name, text]) => [
            name,
            { ...base64url(text), type: ['string', 'null'] },
          ]),
        ),
        ...(withTransports
          ? {
              transports: {
                type: 'array',
                items: { type: 'string', examples: ['internal'] },
                description: 'How the browser may reach the authenticator (`internal`, `hybrid`, `usb`, …)',
              },
            }
          : {}),
      },
      required: names,
    },
  );
}

export const AttestationResponseField = responseField(
  'The attestation, as `startRegistration` returns it (other members are ignored)',
  {
    clientDataJSON: 'The client data (JSON, base64url)',
    attestationObject: 'The attestation object (CBOR, base64url)',
  },
  {},
  true,
);

export const AssertionResponseField = responseField(
  'The assertion, as `startAuthentication` returns it (other members are ignored)',
  {
    clientDataJSON: 'The client data (JSON, base64url)',
    authenticatorData: 'The authenticator data (base64url)',
    signature: 'The signature (base64url)',
  },
  { userHandle: 'The user handle the passkey was registered with (base64url)' },
);

/** POST /profile/passkeys: what `startRegistration` returns (`id`, `type`, `response` read; `rawId` and the rest ignored), and a name. */
export const PasskeyRegistrationBody = {
  id: required(CredentialIdField),
  type: required(CredentialTypeField),
  response: required(AttestationResponseField),
  name: optional(PasskeyNameField),
};

/** POST /auth/passkey: what `startAuthentication` returns (`id`, `type`, `response` read; the rest ignored). */
export const PasskeySignInBody = {
  id: required(CredentialIdField),
  type: required(CredentialTypeField),
  response: required(AssertionResponseField),
};
