import { EntitySchema } from '@mikro-orm/core';

/** The `email_tokens` row: a token sent by e-mail, by its selector, with only a hash of its verifier. */
export interface EmailTokenRow {
  selector: string;
  verifierHash: string;
  userId: string;
  purpose: string;
  email: string;
  createdAt: Date;
  expiresAt: Date;
  spentAt?: Date | null;
  requestedIp?: string | null;
}

export const EmailTokenSchema = new EntitySchema<EmailTokenRow>({
  name: 'EmailTokenRow',
  tableName: 'email_tokens',
  properties: {
    selector: { type: 'string', primary: true, length: 64 },
    verifierHash: { type: 'string', length: 128 },
    userId: { type: 'string', length: 36 },
    purpose: { type: 'string', length: 32 },
    email: { type: 'string', length: 254 },
    createdAt: { type: 'Date' },
    expiresAt: { type: 'Date' },
    spentAt: { type: 'Date', nullable: true },
    requestedIp: { type: 'string', length: 64, nullable: true },
  },
});
