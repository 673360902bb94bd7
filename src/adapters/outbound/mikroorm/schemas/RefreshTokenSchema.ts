import { EntitySchema } from '@mikro-orm/core';

/** The `refresh_tokens` row: one issued refresh token in its family. */
export interface RefreshTokenRow {
  id: string;
  familyId: string;
  userId: string;
  expiresAt: Date;
  consumedAt?: Date | null;
  revokedAt?: Date | null;
}

export const RefreshTokenSchema = new EntitySchema<RefreshTokenRow>({
  name: 'RefreshTokenRow',
  tableName: 'refresh_tokens',
  properties: {
    id: { type: 'string', primary: true, length: 36 },
    familyId: { type: 'string', length: 36 },
    userId: { type: 'string', length: 36 },
    expiresAt: { type: 'Date' },
    consumedAt: { type: 'Date', nullable: true },
    revokedAt: { type: 'Date', nullable: true },
  },
});
