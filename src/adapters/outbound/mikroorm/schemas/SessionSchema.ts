import { EntitySchema } from '@mikro-orm/core';

/** The `sessions` row: one login and everything refreshed from it (its id is the refresh family's). */
export interface SessionRow {
  id: string;
  userId: string;
  createdAt: Date;
  lastUsedAt: Date;
  expiresAt: Date;
  endedAt?: Date | null;
  userAgent?: string | null;
  ip?: string | null;
}

export const SessionSchema = new EntitySchema<SessionRow>({
  name: 'SessionRow',
  tableName: 'sessions',
  properties: {
    id: { type: 'string', primary: true, length: 36 },
    userId: { type: 'string', length: 36 },
    createdAt: { type: 'Date' },
    lastUsedAt: { type: 'Date' },
    expiresAt: { type: 'Date' },
    endedAt: { type: 'Date', nullable: true },
    userAgent: { type: 'string', length: 500, nullable: true },
    ip: { type: 'string', length: 64, nullable: true },
  },
});
