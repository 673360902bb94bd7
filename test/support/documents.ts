import { declareResource, entityOf, field, MB } from '../../src/domain/shared/resource.js';

/**
 * Documents: a resource with a `file` field (`attachment:file(application/pdf|image/*,1MB)?`), the
 * one the shared cores' suites and the file field's presentation tests run over
 * (test/resources/documents.test.ts). Tests only: not served.
 */
export const DOCUMENT = declareResource({
  name: 'document',
  plural: 'documents',
  fields: {
    title: field.string(1, 80),
    attachment: field.file(['application/pdf', 'image/*'], 1 * MB).optional(),
  },
  search: 'title',
});

export class Document extends entityOf(DOCUMENT) {}
