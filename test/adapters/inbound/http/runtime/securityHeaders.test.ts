import { expect } from 'chai';
import { securityHeaderList } from '../../../../../src/adapters/inbound/http/runtime/index.js';

/** What helmet is configured to write (README: Metrics and Tracing): these headers, exactly, and no other. */
describe('HTTP adapter: the security header list (helmet, worked out once)', () => {
  const sorted = (headers: readonly (readonly [string, string])[]): string[] =>
    headers.map(([name, value]) => `${name}: ${value}`).sort();

  it('is nosniff, no-referrer and DENY, nothing else', () => {
    expect(sorted(securityHeaderList({ hsts: false }))).to.deep.equal([
      'Referrer-Policy: no-referrer',
      'X-Content-Type-Options: nosniff',
      'X-Frame-Options: DENY',
    ]);
  });

  it('adds Strict-Transport-Security with hsts', () => {
    expect(sorted(securityHeaderList({ hsts: true }))).to.deep.equal([
      'Referrer-Policy: no-referrer',
      'Strict-Transport-Security: max-age=31536000; includeSubDomains',
      'X-Content-Type-Options: nosniff',
      'X-Frame-Options: DENY',
    ]);
  });
});
