import { commandProblems } from '../../src/domain/shared/commands.js';
import type { ResourceDeclaration } from '../../src/domain/shared/resource.js';
import type { AccessGrant } from '../../src/adapters/outbound/mikroorm/migrations/accessRules.js';
import { entityPath, loadMigrations, tablesAfter } from './declarations.js';
import {
  declaredModels,
  declaredResource,
  migrationChanges,
  POLICY,
  readText,
  type EvolveContext,
  type Plan,
} from './evolve.js';
import { camelOf, namesOf, SNAKE_CASE } from './model.js';
import { reservedIn } from './reserved.js';
import { bodyEnd, withPolicyRules } from './templates/main/edits.js';
import type { ChangeSet } from './writer.js';

/** What `command <resource> <verb> --field … --from a|b --to c [--staff-only]` asks for. */
export interface CommandRequest {
  readonly resource: string;
  readonly verb: string;
  readonly field: string;
  readonly from: readonly string[];
  readonly to: string;
  readonly staffOnly: boolean;
  readonly dryRun: boolean;
}

const USAGE = 'command <resource> <verb> --field <enum field> --from <state>[|<state>...] --to <state> [--staff-only]';

/** The request from the arguments, or every problem with them. */
export function parseCommandRequest(argv: readonly string[]): { value: CommandRequest } | { problems: string[] } {
  const positionals: string[] = [];
  const options: Record<string, string> = {};
  const problems: string[] = [];
  let staffOnly = false;
  let dryRun = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    const option = /^--(field|from|to)(?:=(.*))?$/s.exec(arg);
    if (arg === '--staff-only') staffOnly = true;
    else if (arg === '--dry-run') dryRun = true;
    else if (option) {
      const next = argv[i + 1];
      const value = option[2] ?? (next?.startsWith('--') ? undefined : next);
      if (option[2] === undefined && value !== undefined) i += 1;
      if (value === undefined || value === '') problems.push(`--${option[1]} needs a value (${USAGE})`);
      else options[option[1]!] = value;
    } else if (arg.startsWith('-'))
      problems.push(`unknown option "${arg}" (the options are --field, --from, --to, --staff-only, --dry-run, --help)`);
    else positionals.push(arg);
  }
  const [, resource, verb, ...extra] = positionals;
  if (resource === undefined || verb === undefined) problems.push(`missing the resource or the verb: ${USAGE}`);
  if (extra.length > 0) problems.push(`unexpected arguments: ${extra.join(' ')} (${USAGE})`);
  for (const name of ['field', 'from', 'to'])
    if (options[name] === undefined && !problems.some((p) => p.startsWith(`--${name} `)))
      problems.push(`--${name} is missing (${USAGE})`);
  if (problems.length > 0) return { problems };
  return {
    value: {
      resource: resource!,
      verb: verb!,
      field: options.field!,
      from: options.from!.split('|'),
      to: options.to!,
      staffOnly,
      dryRun,
    },
  };
}

/** Why `verb` cannot name a new command of `declaration` (the checks the declaration itself makes included). */
async function verbProblems(
  context: EvolveContext,
  declaration: ResourceDeclaration,
  request: CommandRequest,
): Promise<string[]> {
  const { verb } = request;
  if (!SNAKE_CASE.test(verb)) return [`verb "${verb}": not lower snake case (ship, mark_paid)`];
  const camel = camelOf(verb);
  const problems: string[] = [];
  const reserved = reservedIn(camel, false);
  if (reserved.length > 0) problems.push(`verb "${verb}": a reserved word in ${reserved.join(', ')}`);
  if (declaration.commands?.[camel]) problems.push(`verb "${verb}": ${declaration.name} has this command already`);
  // A resource that refers to this one lists its rows under `/{id}/<its plural>`: the same path.
  const children = [...(await declaredModels(context.root, context.project.resources)).values()].filter((m) =>
    m.fields.some((f) => f.ref?.snake === declaration.name),
  );
  for (const child of children)
    if (child.names.pluralKebab === verb.replace(/_/g, '-'))
      problems.push(`verb "${verb}": the route of ${declaration.name}'s ${child.names.pluralHuman.toLowerCase()}`);
  const command = { field: camelOf(request.field), from: request.from, to: request.to };
  const declared = commandProblems(declaration.fields, { [camel]: command }).map((p) =>
    p
      .replace(`command ${camel}: `, '')
      .replace(/^not a camel-case word.*/, `verb "${verb}": not lower snake case`)
      .replace(/^a field has this name/, `verb "${verb}": ${declaration.name} has a field of this name`)
      .replace(/^the name is taken.*/, `verb "${verb}": reserved (a word every resource's entity or routes use)`)
      .replace(
        `${command.field} is not an enum field`,
        `--field ${request.field}: not an enum field of ${declaration.name}`,
      ),
  );
  return [...problems, ...declared];
}

/** The declaration's text with the command added to its `commands` (the block made when there is none). */
function withDeclaredCommand(source: string, camel: string, request: CommandRequest): string | undefined {
  const call = /declareResource\(\{/.exec(source);
  if (!call) return undefined;
  const open = call.index + call[0].length;
  const close = bodyEnd(source, open);
  if (close === undefined) return undefined;
  const list = (states: readonly string[]) => `[${states.map((s) => `'${s}'`).join(', ')}]`;
  const entry = `${camel}: { field: '${camelOf(request.field)}', from: ${list(request.from)}, to: '${request.to}'${request.staffOnly ? ', staffOnly: true' : ''} },`;
  const body = source.slice(open, close);
  const commands = /\bcommands:\s*\{/.exec(body);
  if (commands) {
    const start = open + commands.index + commands[0].length;
    const end = bodyEnd(source, start);
    if (end === undefined) return undefined;
    const inside = source.slice(start, end).replace(/\s*$/, '');
    const separator = inside === '' || inside.endsWith(',') ? '' : ',';
    return `${source.slice(0, start)}${inside}${separator}\n    ${entry}\n  ${source.slice(end)}`;
  }
  const before = source.slice(0, close).replace(/\s*$/, '');
  const separator = before.endsWith(',') || before.endsWith('{') ? '' : ',';
  return `${before}${separator}\n  commands: {\n    ${entry}\n  },\n${source.slice(close)}`;
}

/** The entity class's text with the command's method added last. */
function withMethod(
  source: string,
  pascal: string,
  camel: string,
  request: CommandRequest,
  path: string,
): string | undefined {
  const declaration = new RegExp(`class\\s+${pascal}\\s+extends\\s+entityOf\\([^)]*\\)\\s*\\{`).exec(source);
  if (!declaration) return undefined;
  const open = declaration.index + declaration[0].length;
  const close = bodyEnd(source, open);
  if (close === undefined) return undefined;
  const field = camelOf(request.field);
  const method = `  /**
   * The ${request.verb.replace(/_/g, ' ')} command (POST ${path}): moves \`${request.field}\` from ${request.from.join(' or ')} to ${request.to}.
   * More behaviour of the command goes here (docs/extending.md).
   */
  ${camel}(now: Date): ${pascal} {
    this.requireState('${camel}');
    return this.apply({ ${field}: '${request.to}' }, now);
  }`;
  const inside = source.slice(open, close).replace(/\s*$/, '');
  return `${source.slice(0, open)}${inside === '' ? '' : `${inside}\n\n`}\n${method}\n${source.slice(close)}`;
}

/**
 * `command <resource> <verb> --field <enum field> --from a|b --to c [--staff-only]`: the command
 * declared in the resource's declaration and its method written in the entity class; its rules
 * (`moderator`, and the owner on an owned resource unless `--staff-only`) added to policy.csv and
 * granted by a new migration to a database seeded before. The route, the mutation, the API document
 * entry and the tests follow from the declaration.
 */
export async function planCommand(argv: readonly string[], context: EvolveContext): Promise<Plan> {
  const parsed = parseCommandRequest(argv);
  if ('problems' in parsed) return { ok: false, problems: parsed.problems };
  const request = parsed.value;
  const declaration = await declaredResource(context.root, context.project, request.resource);
  if (typeof declaration === 'string') return { ok: false, problems: [declaration] };
  const problems = await verbProblems(context, declaration, request);
  if (problems.length > 0) return { ok: false, problems };

  const names = namesOf(declaration.name);
  const camel = camelOf(request.verb);
  const path = `/api/v1/${names.pluralKebab}/{id}/${request.verb.replace(/_/g, '-')}`;
  const entity = entityPath(declaration.name);
  const source = readText(context.root, entity) ?? '';
  const declared = withDeclaredCommand(source, camel, request);
  const written = declared === undefined ? undefined : withMethod(declared, names.pascal, camel, request, path);
  if (written === undefined)
    return {
      ok: false,
      problems: [
        `${entity}: no \`declareResource({ … })\` and \`class ${names.pascal} extends entityOf(…) { … }\` to add the command to (nothing was written)`,
      ],
    };

  const owned = (declaration as { readonly owned?: boolean }).owned === true;
  const grants: AccessGrant[] = [
    { role: 'moderator', path, action: 'POST' },
    ...(owned && !request.staffOnly ? [{ role: 'user', path, action: 'POST', scope: 'own' as const }] : []),
  ];
  const read = (file: string) => readText(context.root, file);
  const table = tablesAfter(await loadMigrations(context.root)).get(declaration.plural);
  if (!table)
    return {
      ok: false,
      problems: [`no migration creates the ${declaration.plural} table, so no migration can grant the rules`],
    };
  const migration = migrationChanges(
    context.project.migrationStamp,
    { before: table, after: table },
    { grant: grants },
    `${declaration.plural}_${request.verb}_command`,
  );
  if (!migration.ok) return migration;
  const policy = read(POLICY);
  const format = context.format ?? (async (changes: ChangeSet) => changes);
  const changes = await format({
    create: migration.changes.create,
    modify: [
      { path: entity, contents: written },
      ...migration.changes.modify,
      ...(policy === undefined ? [] : [{ path: POLICY, contents: withPolicyRules(policy, grants) }]),
    ],
  });
  return {
    ok: true,
    changes,
    notes: request.dryRun
      ? []
      : [
          `next: the command's behaviour is ${names.pascal}.${camel} in ${entity}; npm test runs its tests; npm start applies its migration`,
        ],
    dryRun: request.dryRun,
  };
}
