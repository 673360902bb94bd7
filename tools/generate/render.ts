import type { ResourceModel } from './model.js';
import type { ProjectState } from './project.js';
import { domainFiles } from './templates/domain/index.js';
import { MAIN_EDITS } from './templates/main/index.js';
import { outboundFiles } from './templates/outbound/index.js';
import { testFiles } from './templates/tests/index.js';
import type { ChangeSet } from './writer.js';

/**
 * The files a resource is made of (ARCHITECTURE rule 21): what is particular to it — its
 * declaration and entity class, the migration that creates its table, one test file running the
 * shared suites over it — and the new contents of the only two existing files it changes: the module
 * list (its one `resourceModule(…)` line) and `policy/policy.csv`. Everything else is served by the
 * shared cores. Each file is written by one template under `tools/generate/templates/`.
 */
export function render(model: ResourceModel, project: ProjectState): ChangeSet {
  return {
    create: [...domainFiles(model), ...outboundFiles(model), ...testFiles(model)],
    modify: MAIN_EDITS.map(({ path, edit }) => {
      const current = project.files?.[path];
      if (current === undefined) throw new Error(`${path} was not read`);
      return { path, contents: edit(model, current) };
    }),
  };
}
