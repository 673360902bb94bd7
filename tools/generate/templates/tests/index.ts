import type { ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';

/** The path of a resource's test file: `test/resources/<plural camel>.test.ts`. */
export const resourceTestPath = (m: ResourceModel): string => `test/resources/${m.names.pluralCamel}.test.ts`;

/**
 * `test/resources/<plural camel>.test.ts`: the shared resource suites (test/support/resource/suites.ts)
 * over the resource's declaration — its domain rules, the use cases on memory, the repository
 * contract on memory, SQLite and PostgreSQL, REST, GraphQL and access control. Every sample they
 * use is derived from the declaration, so the file stays one line when a field changes.
 */
export function resourceTestFile(m: ResourceModel): FileContents {
  const { snake, pascal } = m.names;
  const contents = `import { ${pascal} } from '../../src/domain/${snake}/${pascal}.js';
import { describeResource } from '../support/resource/suites.js';

describeResource(${pascal});
`;
  return { path: resourceTestPath(m), contents };
}

/** The test files of a resource: one, running the shared suites over its declaration. */
export function testFiles(m: ResourceModel): FileContents[] {
  return [resourceTestFile(m)];
}
