import type { ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import { moduleListEdit, policyEdit, type Edit } from './edits.js';
import { moduleFile } from './module.js';

/** The resource's feature module. */
export function mainFiles(m: ResourceModel): FileContents[] {
  return [moduleFile(m)];
}

/** The only existing files a resource changes: the module list and the policy. */
export const MAIN_EDITS: readonly { path: string; edit: Edit }[] = [
  { path: 'src/main/modules/index.ts', edit: moduleListEdit },
  { path: 'policy/policy.csv', edit: policyEdit },
];
