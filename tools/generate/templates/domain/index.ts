import type { ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import { entityFile } from './entity.js';
import { errorsFile } from './errors.js';
import { repositoryFile } from './repository.js';
import {
  createUseCaseFile,
  deleteUseCaseFile,
  getUseCaseFile,
  listUseCaseFile,
  searchUseCaseFile,
  updateUseCaseFile,
} from './useCases.js';

/** The domain files (entity, errors, repository port) and the use cases of a resource. */
export function domainFiles(m: ResourceModel): FileContents[] {
  const { search } = m;
  return [
    entityFile(m),
    errorsFile(m),
    repositoryFile(m),
    createUseCaseFile(m),
    getUseCaseFile(m),
    listUseCaseFile(m),
    ...(search ? [searchUseCaseFile({ ...m, search })] : []),
    updateUseCaseFile(m),
    deleteUseCaseFile(m),
  ];
}
