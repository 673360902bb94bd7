import type { ResourceModel } from './model.js';
import type { ProjectState } from './project.js';
import { domainFiles } from './templates/domain/index.js';
import { inboundFiles } from './templates/inbound/index.js';
import { MAIN_EDITS, mainFiles } from './templates/main/index.js';
import { outboundFiles } from './templates/outbound/index.js';
import { testFiles } from './templates/tests/index.js';
import type { ChangeSet } from './writer.js';

/**
 * The files a resource is made of: every new file of its slice (domain and use cases, inbound,
 * outbound, its feature module, its tests), and the new contents of the only two existing files
 * it changes — the module list and `policy/policy.csv` (ISSUE10.md, Part 2). Each file is written
 * by one template under `tools/generate/templates/`.
 */
export function render(model: ResourceModel, project: ProjectState): ChangeSet {
  return {
    create: [
      ...domainFiles(model),
      ...inboundFiles(model),
      ...outboundFiles(model),
      ...mainFiles(model),
      ...testFiles(model),
    ],
    modify: MAIN_EDITS.map(({ path, edit }) => {
      const current = project.files?.[path];
      if (current === undefined) throw new Error(`${path} was not read`);
      return { path, contents: edit(model, current) };
    }),
  };
}
