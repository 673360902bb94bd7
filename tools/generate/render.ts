import type { ResourceModel } from './model.js';
import type { ProjectState } from './project.js';
import type { ChangeSet } from './writer.js';

/**
 * The files a resource is made of: every new file of its slice, and the new contents of the module
 * list and `policy/policy.csv` (ISSUE10.md, Part 2). Each file is written by one template under
 * `tools/generate/templates/`.
 */
export function render(model: ResourceModel, project: ProjectState): ChangeSet {
  void model;
  void project;
  throw new Error('templates are not written yet');
}
