import type { FieldModel, ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import { enumTypeName, enumValuesName, lines, ruleCall, ruleImports, storedType, withArticle, wrap } from './fields.js';

/** The values and union type of each enum field. */
function enumDeclarations(m: ResourceModel): string {
  return m.fields
    .filter((f) => f.type === 'enum')
    .map(
      (f) => `
/** The values of \`${f.name}\`. */
export const ${enumValuesName(m, f)} = ${wrap(
        '[',
        (f.values ?? []).map((v) => `'${v}'`),
        '] as const;',
      )}
export type ${enumTypeName(m, f)} = (typeof ${enumValuesName(m, f)})[number];
`,
    )
    .join('');
}

/** A field as a client sets it: optional ones may be absent (null) on create. */
function inputProperty(m: ResourceModel, f: FieldModel): string {
  const doc = f.type === 'ref' ? `/** The id of an existing ${f.ref?.human.toLowerCase() ?? 'row'}. */\n  ` : '';
  return `${doc}readonly ${f.camel}${f.optional ? '?' : ''}: ${storedType(m, f)};`;
}

const capitalized = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

const getter = (name: string, type: string): string => `get ${name}(): ${type} {
    return this.props.${name};
  }`;

/** `src/domain/<snake>/<Pascal>.ts`: the entity with its invariants and optimistic version. */
export function entityFile(m: ResourceModel): FileContents {
  const { pascal, snake, human } = m.names;
  const rules = `${snake.toUpperCase()}_FIELD_RULES`;
  const a = human.toLowerCase();
  const contents = `${wrap('import {', ruleImports(m), "} from '../shared/fieldRules.js';")}
import { ${pascal}VersionMismatchError } from './${pascal}Errors.js';
${enumDeclarations(m)}
/** Each field's rule under its JSON name; the inbound codecs read client input with the same rules. */
export const ${rules} = {
  ${lines(
    m.fields.map((f) => `${f.name}: ${ruleCall(m, f)},`),
    2,
  )}
};

/** The fields a client sets: every one on create${m.fields.some((f) => f.optional) ? ' (an absent optional one is null)' : ''}, any of them on update. */
export interface ${pascal}Fields {
  ${lines(
    m.fields.map((f) => inputProperty(m, f)),
    2,
  )}
}

/** A partial change: an absent field stays as it is${m.fields.some((f) => f.optional) ? ', `null` clears an optional one' : ''}. */
export type ${pascal}Changes = Partial<${pascal}Fields>;

export interface ${pascal}Props {
  readonly id: string;
  ${lines(
    m.fields.map((f) => `readonly ${f.camel}: ${storedType(m, f)};`),
    2,
  )}
  /** Bumped by every change; a conditional write names the version it expects (the REST \`ETag\`). */
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

function guard(changes: ${pascal}Changes): void {
  guardFields(${rules}, {
    ${lines(
      m.fields.map((f) => `${f.name}: changes.${f.camel},`),
      4,
    )}
  });
}

/** ${capitalized(withArticle(a))}. Immutable; every change bumps the version. */
export class ${pascal} {
  private constructor(private readonly props: ${pascal}Props) {}

  /** A new ${a} at version 1; refuses, listing every failing field, a value that breaks its field's rule. */
  static create(input: ${pascal}Fields & { readonly id: string }, now: Date): ${pascal} {
    guard(input);
    return new ${pascal}({
      id: input.id,
      ${lines(
        m.fields.map((f) => `${f.camel}: input.${f.camel}${f.optional ? ' ?? null' : ''},`),
        6,
      )}
      version: 1,
      createdAt: now,
      updatedAt: now,
    });
  }

  /** ${capitalized(withArticle(a))} read back from storage, at its stored version. */
  static restore(props: ${pascal}Props): ${pascal} {
    return new ${pascal}(props);
  }

  ${getter('id', 'string')}
  ${lines(
    m.fields.map((f) => getter(f.camel, storedType(m, f))),
    2,
  )}
  ${getter('version', 'number')}
  ${getter('createdAt', 'Date')}
  ${getter('updatedAt', 'Date')}

  /**
   * Refuses with ${pascal}VersionMismatchError unless the ${a} is at one of \`versions\` (the
   * expectation of a conditional write); \`undefined\` expects nothing, an empty list nothing matches.
   */
  requireVersion(versions: readonly number[] | undefined): void {
    if (versions !== undefined && !versions.includes(this.props.version)) {
      throw new ${pascal}VersionMismatchError(this.props.id);
    }
  }

  /** Applies a partial change: absent fields stay, present ones are checked and set. */
  update(changes: ${pascal}Changes, now: Date): ${pascal} {
    guard(changes);
    return new ${pascal}({
      ...this.props,
      ${lines(
        m.fields.map((f) => `...(changes.${f.camel} !== undefined ? { ${f.camel}: changes.${f.camel} } : {}),`),
        6,
      )}
      version: this.props.version + 1,
      updatedAt: now,
    });
  }

  toProps(): ${pascal}Props {
    return { ...this.props };
  }
}
`;
  return { path: `src/domain/${snake}/${pascal}.ts`, contents };
}
