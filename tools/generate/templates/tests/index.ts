import type { ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import { e2eTestFile, entityTestFile, repositoryTestFile, useCasesTestFile } from './files.js';
import { supportFile } from './support.js';

/**
 * The test files of a resource (README: Add a resource): its descriptor for the shared suites of
 * test/support/resource/, then domain invariants, use cases on the memory adapter, the repository
 * contract on memory, SQLite and PostgreSQL, and REST, GraphQL and access control end to end.
 */
export function testFiles(m: ResourceModel): FileContents[] {
  return [supportFile(m), entityTestFile(m), useCasesTestFile(m), repositoryTestFile(m), e2eTestFile(m)];
}
