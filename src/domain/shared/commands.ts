import { ConflictError, type DomainError } from './DomainError.js';
import { humanName } from './resourceErrors.js';

/**
 * A command of a declared resource (`ship`): it moves the enum `field` from one of the `from`
 * states to `to`. The entity's method of the same name makes the change; the declaration is what
 * the route, the GraphQL mutation, the API document and the tests are derived from.
 */
export interface CommandDeclaration<K extends string = string> {
  /** The enum field it moves (its TypeScript name, `status`). */
  readonly field: K;
  /** The states it may start from. */
  readonly from: readonly string[];
  /** The state it leaves the field in. */
  readonly to: string;
  /** Only staff (`moderator` and up) may run it, even on an owned resource's own rows. */
  readonly staffOnly?: boolean;
}

/** A resource's commands, by verb (the entity's method name, camel case: `ship`, `markPaid`). */
export type CommandDeclarations<K extends string = string> = Readonly<Record<string, CommandDeclaration<K>>>;

/** The names an entity already answers to: a command named so would hide them. */
const ENTITY_MEMBERS = [
  'id',
  'version',
  'createdAt',
  'updatedAt',
  'requireVersion',
  'requireState',
  'update',
  'apply',
  'toProps',
  'constructor',
  'props',
  'changed',
];

/** Words the generic routes and mutations already use for a resource: `create<Resource>`, `…/search`. */
export const ROUTE_WORDS = ['create', 'update', 'delete', 'get', 'list', 'search'];

/** A verb: a camel-case word of lower-case letters and digits (`ship`, `markPaid`). */
const VERB = /^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)*$/;

/**
 * Why `commands` cannot be declared for a resource with `fields` (one line each; none when they
 * can): a verb that is not a camel-case word, or is a field, an entity member or a route word; a
 * field that is not an enum; a state the field does not list.
 */
export function commandProblems(
  fields: Readonly<Record<string, { readonly type: string; readonly values?: readonly string[] }>>,
  commands: CommandDeclarations,
): string[] {
  return Object.entries(commands).flatMap(([verb, command]) => {
    const problems: string[] = [];
    if (!VERB.test(verb)) problems.push(`command ${verb}: not a camel-case word (ship, markPaid)`);
    else if (verb in fields) problems.push(`command ${verb}: a field has this name`);
    else if (ENTITY_MEMBERS.includes(verb) || ROUTE_WORDS.includes(verb))
      problems.push(`command ${verb}: the name is taken by every resource's entity or routes`);
    const field = fields[command.field];
    if (field?.type !== 'enum') {
      problems.push(`command ${verb}: ${command.field} is not an enum field`);
      return problems;
    }
    const values = field.values ?? [];
    if (command.from.length === 0) problems.push(`command ${verb}: no state to start from`);
    for (const state of [...command.from, command.to])
      if (!values.includes(state))
        problems.push(`command ${verb}: ${command.field} has no state ${state} (it lists ${values.join(', ')})`);
    return problems;
  });
}

/** `markPaid` → `mark_paid`: a verb as the generator and the route spell it. */
export const verbWords = (verb: string): string => verb.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** `book order is shipped; ship needs paid`: why a row in another state cannot take the command. */
export function wrongState(
  resource: string,
  verb: string,
  command: CommandDeclaration,
  current: unknown,
  id: string,
): DomainError {
  const human = humanName(resource).toLowerCase();
  const now = current === null || current === undefined ? `has no ${command.field}` : `is ${String(current)}`;
  const needs = command.from.join(' or ');
  return new ConflictError(`${human} ${now}; ${verbWords(verb).replace(/_/g, ' ')} needs ${needs}`, `id: ${id}`);
}
