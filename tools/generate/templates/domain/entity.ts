import type { FieldModel, ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import { fieldCall, sizeUnitsOf, withArticle } from './fields.js';

const capitalized = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** `    customerId: field.ref('customer', 'customers'),`: one field's line of the declaration. */
export const declarationLine = (f: FieldModel): string => `    ${f.camel}: ${fieldCall(f)},`;

/**
 * `src/domain/<snake>/<Pascal>.ts`: the resource's one declaration (its fields, one a line) and
 * its entity, whose rules, types, getters and errors (`<Pascal>.errors`) come from the declaration;
 * the class is where the resource's own behaviour goes.
 */
export function entityFile(m: ResourceModel): FileContents {
  const { pascal, snake, pluralSnake, human } = m.names;
  const upper = snake.toUpperCase();
  const a = human.toLowerCase();
  const optional = m.fields.some((f) => f.optional);
  // A file field's size names its unit (`5 * MB`).
  const units = sizeUnitsOf(m.fields)
    .map((unit) => `${unit}, `)
    .join('');
  const contents = `import { declareResource, entityOf, field, ${units}type Changes, type CreateInput, type PropsOf } from '../shared/resource.js';

/** The ${a} resource, declared once: everything else about its fields is derived from this. */
export const ${upper} = declareResource({
  name: '${snake}',
  plural: '${pluralSnake}',
  fields: {
${m.fields.map(declarationLine).join('\n')}
  },${m.search ? `\n  search: '${m.search.camel}',` : ''}${m.owned ? '\n  owned: true,' : ''}${m.cached ? '\n  cached: true,' : ''}
});

type Fields = typeof ${upper}.fields;
/** The fields a client sets: every one on create${optional ? ' (an absent optional one is null)' : ''}, any of them on update. */
export type ${pascal}Fields = CreateInput<Fields>;
/** A partial change: an absent field stays as it is${optional ? ', `null` clears an optional one' : ''}. */
export type ${pascal}Changes = Changes<Fields>;
export type ${pascal}Props = PropsOf<Fields>;

/** ${capitalized(withArticle(a))}. Immutable; every change bumps the version. */
export class ${pascal} extends entityOf(${upper}) {}
`;
  return { path: `src/domain/${snake}/${pascal}.ts`, contents };
}
