import type { FieldUnderTest, Json } from './descriptor.js';

/**
 * The `n`-th of distinct values of a field, in REST JSON form, from its first sample (`n` = 0 is
 * the sample): a string's tail, an e-mail's local part, a number, a time or a UUID moved by `n`;
 * an enum or a boolean alternates between its two samples. Within the field's rule for the `n`
 * a suite uses (a few dozen), for the samples `declared.ts` makes.
 */
export function variantOf(field: Pick<FieldUnderTest, 'kind' | 'samples'>, n: number): Json {
  const sample = field.samples[0];
  if (n === 0 || sample === null) return sample;
  switch (field.kind) {
    case 'string':
    case 'text': {
      const text = String(sample);
      const tag = `~${n.toString(36)}`;
      return text.length > tag.length ? text.slice(0, text.length - tag.length) + tag : tag.slice(-text.length);
    }
    case 'email':
      return `${n}.${String(sample)}`;
    case 'integer':
    case 'number':
      return Number(sample) + n;
    case 'decimal': {
      const text = String(sample);
      const scale = text.includes('.') ? text.length - text.indexOf('.') - 1 : 0;
      return (Number(text) + n).toFixed(scale);
    }
    case 'datetime':
      return new Date(Date.parse(String(sample)) + n * 1000).toISOString();
    case 'date':
      return new Date(Date.parse(`${String(sample)}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
    case 'uuid':
      return `${String(sample).slice(0, 24)}${n.toString(16).padStart(12, '0')}`;
    default:
      return field.samples[n % 2] ?? sample;
  }
}
