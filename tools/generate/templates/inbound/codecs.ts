import type { FieldModel, FieldType, ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import {
  codecName,
  domainDir,
  domainRuleName,
  enumTypeName,
  fieldRulesName,
  importLine,
  objectLiteral,
  rangeText,
  refFields,
  withArticle,
} from './names.js';

/** The factory in `codecs/fields.ts` that reads each field type. */
const FACTORY: Record<FieldType, string> = {
  string: 'stringField',
  text: 'stringField',
  integer: 'integerField',
  number: 'numberField',
  boolean: 'booleanField',
  datetime: 'dateTimeField',
  email: 'emailField',
  uuid: 'uuidField',
  enum: 'enumField',
  ref: 'uuidField',
};

/** What a field's codec accepts, for its TSDoc. */
function describe(f: FieldModel): string {
  const { min, max } = f.bounds;
  switch (f.type) {
    case 'string':
    case 'text':
      return `${min} to ${max} characters once trimmed, none of them invisible (looked for before trimming).`;
    case 'integer':
      return `A JSON integer ${rangeText(f.bounds, true)} (10.5 and "10" are refused).`;
    case 'number': {
      const range = rangeText(f.bounds, false);
      return `A JSON number, finite${range === '' ? '' : ` and ${range}`} (a string such as "10" is refused).`;
    }
    case 'boolean':
      return '`true` or `false`.';
    case 'datetime':
      return 'An RFC 3339 date-time with a time zone; answered in UTC.';
    case 'email':
      return 'An e-mail address, NFKC-normalized, trimmed and lower-cased.';
    case 'uuid':
      return 'A UUID.';
    case 'enum':
      return `One of ${(f.values ?? []).join(', ')}.`;
    case 'ref':
      return `The id of ${withArticle(f.ref?.human.toLowerCase() ?? 'row')}; the repository checks that it exists.`;
  }
}

function codec(m: ResourceModel, f: FieldModel): string {
  if (f.type === 'boolean') return `${FACTORY.boolean}()`;
  const type = f.type === 'enum' ? `<${enumTypeName(m, f)}>` : '';
  return `${FACTORY[f.type]}${type}(${domainRuleName(m, f)})`;
}

/** A body's shape: each field required or optional, an optional (nullable) field taking `null` too. */
function shape(prefix: string, m: ResourceModel, presence: (f: FieldModel) => 'required' | 'optional'): string {
  const entries = m.fields.map((f) => {
    const field = f.optional ? `nullable(${codecName(m, f)})` : codecName(m, f);
    return `${f.camel}: ${presence(f)}(${field})`;
  });
  return objectLiteral(prefix, entries);
}

/**
 * `src/adapters/inbound/codecs/<camel>Codecs.ts`: one codec per field (the JSON type read here, the
 * rule and its message the domain's), the create and update bodies, and the list filters of ref fields.
 */
export function codecsFile(m: ResourceModel): FileContents {
  const { camel, pascal } = m.names;
  const ruled = m.fields.filter((f) => f.type !== 'boolean');
  const domainNames = [
    ...(ruled.length > 0 ? [fieldRulesName(m)] : []),
    ...m.fields.filter((f) => f.type === 'enum').map((f) => `type ${enumTypeName(m, f)}`),
  ];
  const refs = refFields(m);
  const factories = new Set(m.fields.map((f) => FACTORY[f.type]));
  const helpers = [
    ...factories,
    ...(m.fields.some((f) => f.optional) ? ['nullable'] : []),
    'optional',
    ...(m.fields.some((f) => !f.optional) ? ['required'] : []),
  ];
  const imports = [
    ...(domainNames.length > 0 ? [importLine(domainNames, `../../../${domainDir(m)}/${pascal}.js`)] : []),
    importLine(helpers, './fields.js'),
  ];
  const codecs = m.fields.map((f) => `/** ${describe(f)} */\nexport const ${codecName(m, f)} = ${codec(m, f)};`);
  const filters =
    refs.length === 0
      ? ''
      : `\n/** The list's filters (\`?${refs[0]?.name}=<id>\`): one per ref field. */\n${objectLiteral(
          `export const ${pascal}Filters = `,
          refs.map((f) => `${f.camel}: optional(${codecName(m, f)})`),
        )}\n`;
  return {
    path: `src/adapters/inbound/codecs/${camel}Codecs.ts`,
    contents: `${imports.join('\n')}

${codecs.join('\n\n')}

${shape(`export const Create${pascal}Body = `, m, (f) => (f.optional ? 'optional' : 'required'))}
${shape(`export const Update${pascal}Body = `, m, () => 'optional')}
${filters}`,
  };
}
