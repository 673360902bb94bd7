import { Migration } from '@mikro-orm/migrations';

/**
 * Account mail limits per address and per client IP (docs/accounts.md): `email_tokens` records
 * the IP that asked for each token, and is indexed for the two counts (recent tokens of one
 * purpose sent to one address; recent tokens asked for from one IP).
 */
export class Migration0004AccountMailLimits extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table email_tokens add column requested_ip varchar(64) null');
    this.addSql(
      'create index email_tokens_email_purpose_created_at_index on email_tokens (email, purpose, created_at)',
    );
    this.addSql('create index email_tokens_requested_ip_created_at_index on email_tokens (requested_ip, created_at)');
  }

  override async down(): Promise<void> {
    this.addSql('drop index email_tokens_requested_ip_created_at_index');
    this.addSql('drop index email_tokens_email_purpose_created_at_index');
    // Both engines drop a column in place (SQLite since 3.35).
    this.addSql('alter table email_tokens drop column requested_ip');
  }
}
