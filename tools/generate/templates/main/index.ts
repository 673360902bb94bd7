import { moduleListEdit, policyEdit, type Edit } from './edits.js';

/** The only existing files a resource changes: the module list (its one line there) and the policy. */
export const MAIN_EDITS: readonly { path: string; edit: Edit }[] = [
  { path: 'src/main/modules/index.ts', edit: moduleListEdit },
  { path: 'policy/policy.csv', edit: policyEdit },
];
