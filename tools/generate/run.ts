import { planCommand } from './command.js';
import { declaredModels, planField, planMigration, relationClashes, type Plan } from './evolve.js';
import { HELP } from './help.js';
import type { ResourceModel } from './model.js';
import { parseCommand } from './parse.js';
import { readProjectState, type ProjectState } from './project.js';
import { resourceTestPath } from './templates/tests/index.js';
import { checkChangeSet, realFs, writeChangeSet, type ChangeSet, type WriterFs } from './writer.js';

/** What a generation needs from outside: where the project is, the templates, and where to write. */
export interface RunDependencies {
  /** The project root every path is relative to. */
  root: string;
  /** The templates: model → files. */
  render(model: ResourceModel, project: ProjectState): ChangeSet;
  /** Formats what `render` wrote (the repository's formatter); the identity when absent. */
  format?: (changes: ChangeSet) => Promise<ChangeSet>;
  readProject?: (root: string) => ProjectState;
  fs?: WriterFs;
  out(text: string): void;
  err(text: string): void;
}

const problemLines = (problems: string[]): string => problems.map((p) => `generate: ${p}\n`).join('');

/** What the command would write: a new resource (`resource`), or a change of one (`field`, `migration`, `command`). */
async function planOf(argv: string[], project: ProjectState, deps: RunDependencies): Promise<Plan> {
  const command = argv.find((arg) => !arg.startsWith('-'));
  const context = { root: deps.root, project, ...(deps.format ? { format: deps.format } : {}) };
  if (command === 'field') return planField(argv, context);
  if (command === 'migration') return planMigration(argv, context);
  if (command === 'command') return planCommand(argv, context);
  const parsed = parseCommand(argv, project);
  if (!parsed.ok) return parsed;
  const clashes = relationClashes(parsed.model, await declaredModels(deps.root, project.resources));
  if (clashes.length > 0) return { ok: false, problems: clashes };
  const rendered = deps.render(parsed.model, project);
  const changes = deps.format ? await deps.format(rendered) : rendered;
  return { ok: true, changes, notes: parsed.dryRun ? [] : nextSteps(parsed.model), dryRun: parsed.dryRun };
}

/** What to do after `generate resource`, and where the resource's own code goes. */
function nextSteps(m: ResourceModel): string[] {
  const { snake, pascal } = m.names;
  return [
    `next: npm test runs its tests (${resourceTestPath(m)}); npm start applies its migration`,
    `behaviour of its own (a state rule, a command) goes in class ${pascal}, src/domain/${snake}/${pascal}.ts`,
  ];
}

/**
 * Runs `generate` with `argv` (what follows `npm run generate --`). Exit codes: 0 written (or listed by
 * --dry-run, or help asked for), 1 writing failed (and was undone), 2 refused (nothing written).
 */
export async function run(argv: string[], deps: RunDependencies): Promise<number> {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
    deps.out(HELP);
    return argv.length === 0 ? 2 : 0;
  }
  const fs = deps.fs ?? realFs;
  try {
    const project = (deps.readProject ?? readProjectState)(deps.root);
    const plan = await planOf(argv, project, deps);
    if (!plan.ok) {
      deps.err(problemLines(plan.problems));
      return 2;
    }
    const { changes } = plan;
    if (plan.dryRun) {
      const problems = await checkChangeSet(deps.root, changes, fs);
      if (problems.length > 0) {
        deps.err(problemLines(problems));
        return 2;
      }
      const lines = [
        ...changes.create.map((f) => `would create ${f.path}`),
        ...changes.modify.map((f) => `would change ${f.path}`),
        ...plan.notes,
      ];
      deps.out(lines.map((line) => `${line}\n`).join(''));
      return 0;
    }
    const written = await writeChangeSet(deps.root, changes, fs);
    if (!written.ok) {
      deps.err(problemLines(written.problems));
      return 2;
    }
    const lines = [
      ...changes.create.map((f) => `created ${f.path}`),
      ...changes.modify.map((f) => `changed ${f.path}`),
      ...plan.notes,
    ];
    deps.out(lines.map((line) => `${line}\n`).join(''));
    return 0;
  } catch (error) {
    deps.err(`generate: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
