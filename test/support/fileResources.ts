import { declareResource, entityOf, field, MB } from '../../src/domain/shared/resource.js';

/**
 * A poster: a title, a picture (PNG or JPEG) and a leaflet (PDF or plain text), each at most 1 MB,
 * owned by the user who made it — the resource the file flows are tested over. Tests only: not served.
 */
export const POSTER = declareResource({
  name: 'poster',
  plural: 'posters',
  fields: {
    title: field.string(1, 80),
    picture: field.file(['image/png', 'image/jpeg'], 1 * MB).optional(),
    leaflet: field.file(['application/pdf', 'text/plain'], 1 * MB).optional(),
  },
  owned: true,
});
export class Poster extends entityOf(POSTER) {}

/** The smallest PNG: one transparent pixel. */
export const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201ff6e2b9a0000000049454e44ae426082',
  'hex',
);

/** The start of a JPEG (its signature, a JFIF header) and some bytes. */
export const JPEG = Buffer.concat([
  Buffer.from('ffd8ffe000104a46494600010100000100010000', 'hex'),
  Buffer.alloc(64, 7),
]);

/** A page of HTML: no signature at all. */
export const HTML = Buffer.from('<!doctype html><html><body><script>alert(1)</script></body></html>');

/** `n` bytes of a PNG: its signature, then filler. */
export const pngOf = (n: number): Buffer =>
  Buffer.concat([PNG, Buffer.alloc(Math.max(0, n - PNG.length), 1)]).subarray(0, n);

/** A body as the port takes it: `bytes` in chunks of `size`. */
export async function* chunks(bytes: Uint8Array, size = 1000): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}
