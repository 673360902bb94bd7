import { nestedListPaths, type ResourceModel } from '../../model.js';
import type { AccessRule } from '../outbound/migrationFile.js';

/** An edit of an existing file: its current text in, its new text out. */
export type Edit = (m: ResourceModel, current: string) => string;

const IMPORT = /^import [^;]*? from '([^']+)';$/gm;

/**
 * `text` with `import { name } from 'path';` among its imports, which are sorted by path (case
 * aside) as the module list's are; unchanged when `path` is imported already.
 */
export function withImport(text: string, name: string, path: string): string {
  const imports = [...text.matchAll(IMPORT)].map((match) => ({
    start: match.index ?? 0,
    end: (match.index ?? 0) + match[0].length,
    path: match[1] ?? '',
  }));
  if (imports.some((i) => i.path === path)) return text;
  const line = `import { ${name} } from '${path}';`;
  const next = imports.find((i) => i.path.toLowerCase() > path.toLowerCase());
  if (next) return `${text.slice(0, next.start)}${line}\n${text.slice(next.start)}`;
  const last = imports.at(-1);
  return last ? `${text.slice(0, last.end)}\n${line}${text.slice(last.end)}` : `${line}\n${text}`;
}

/** Where the bracket closes whose body starts at `open` (just past its `[`, `(` or `{`), strings skipped; `undefined` if none does. */
export function bodyEnd(text: string, open: number): number | undefined {
  let depth = 1;
  let quote: string | undefined;
  for (let i = open; i < text.length; i += 1) {
    const c = text[i] as string;
    if (quote) {
      if (c === '\\') i += 1;
      else if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"' || c === '`') quote = c;
    else if ('([{'.includes(c)) depth += 1;
    else if (')]}'.includes(c) && --depth === 0) return i;
  }
  return undefined;
}

/** The items of a list's body at its top level (commas inside calls and brackets do not split). */
function topLevelItems(body: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < body.length; i += 1) {
    const c = body[i] as string;
    if ('([{'.includes(c)) depth += 1;
    else if (')]}'.includes(c)) depth -= 1;
    else if (c === ',' && depth === 0) {
      items.push(body.slice(from, i));
      from = i + 1;
    }
  }
  items.push(body.slice(from));
  return items.map((item) => item.trim()).filter((item) => item !== '');
}

/** `body` with `entry` appended as its last item, in the layout the formatter gives the list. */
function appended(prefix: string, body: string, entry: string): string {
  if (body.includes('\n')) return `${body.replace(/\s*$/, '').replace(/,?$/, ',')}\n  ${entry},\n`;
  const items = [...topLevelItems(body), entry];
  const oneLine = `${prefix}${items.join(', ')}];`;
  return oneLine.length <= 120 ? items.join(', ') : `\n${items.map((item) => `  ${item},`).join('\n')}\n`;
}

const MODULES = /export const MODULES\b[^=]*=\s*\[/;

/** `resourceModule(Invoice, …)`: the resource's entry in MODULES, found by its entity class. */
export const moduleEntry = (pascal: string): RegExp => new RegExp(`\\bresourceModule\\(\\s*${pascal}\\s*[,)]`);

/**
 * `src/main/modules/index.ts`: imports the resource's entity (among the imports, sorted by path as
 * they are) and appends `resourceModule(<Pascal>)` to MODULES — after every resource generated
 * before it, so a referenced resource comes first. Already listed: the list is left as it is. (Its
 * migrations are files the database finds; no list names them.)
 */
export const moduleListEdit: Edit = (m, current) => {
  const { snake, pascal } = m.names;
  const list = MODULES.exec(current);
  const open = list ? list.index + list[0].length : undefined;
  const close = open === undefined ? undefined : bodyEnd(current, open);
  if (!list || open === undefined || close === undefined)
    throw new Error('src/main/modules/index.ts: the MODULES list was not found');
  const body = current.slice(open, close);
  const entry = `resourceModule(${pascal})`;
  const listed = moduleEntry(pascal).test(body)
    ? current
    : `${current.slice(0, open)}${appended(list[0], body, entry)}${current.slice(close)}`;
  return [
    [pascal, `../../domain/${snake}/${pascal}.js`],
    ['resourceModule', './resource.js'],
  ].reduce((text, [name, path]) => withImport(text, name!, path!), listed);
};

/**
 * The rules a resource brings (README: Add a resource): `user` reads, `moderator` does everything —
 * on the collection, the item, and each nested list under a referenced row (the list's rules). An
 * owned resource's `user` also creates, updates and deletes, each with scope `own` (its own rows).
 */
export function policyRules(m: ResourceModel): AccessRule[] {
  const collection = `/api/v1/${m.names.pluralKebab}`;
  const item = `${collection}/{id}`;
  const nested = nestedListPaths(m);
  const own = m.owned ? { scope: 'own' as const } : {};
  return [
    { role: 'user', path: collection, action: m.owned ? 'GET|POST' : 'GET', ...own },
    { role: 'user', path: item, action: m.owned ? 'GET|PUT|DELETE' : 'GET', ...own },
    ...nested.map((path) => ({ role: 'user', path, action: 'GET', ...own })),
    { role: 'moderator', path: collection, action: '.*' },
    { role: 'moderator', path: item, action: '.*' },
    ...nested.map((path) => ({ role: 'moderator', path, action: '.*' })),
  ];
}

const cells = (line: string): string[] => line.split(',').map((cell) => cell.trim());

/**
 * `policy/policy.csv`: adds the resource's rules, each among its role's `p` lines (sorted by path
 * there), a role without any after the last `p` line, so the `g` lines stay last. A rule for a role
 * and path already there is skipped, whatever its action.
 */
export const policyEdit: Edit = (m, current) => withPolicyRules(current, policyRules(m));

/**
 * `policy/policy.csv`'s text with `rules` added as `policyEdit` adds a resource's (an `own` rule
 * with the fifth field `own`); a rule for a role and path already there is skipped.
 */
export function withPolicyRules(
  current: string,
  rules: readonly { role: string; path: string; action: string; scope?: 'all' | 'own' }[],
): string {
  const endsWithNewline = current.endsWith('\n');
  const lines = current.split('\n');
  if (endsWithNewline) lines.pop();
  for (const rule of rules) {
    const policies = lines.flatMap((line, index) => {
      const [kind, role, path] = cells(line);
      return kind === 'p' ? [{ index, role: role ?? '', path: path ?? '' }] : [];
    });
    if (policies.some((p) => p.role === rule.role && p.path === rule.path)) continue;
    const ofRole = policies.filter((p) => p.role === rule.role);
    const after = ofRole.find((p) => p.path > rule.path);
    const at = after?.index ?? (ofRole.at(-1) ?? policies.at(-1))?.index ?? -1;
    lines.splice(
      after ? at : at + 1,
      0,
      `p, ${rule.role}, ${rule.path}, ${rule.action}${rule.scope === 'own' ? ', own' : ''}`,
    );
  }
  return lines.join('\n') + (endsWithNewline ? '\n' : '');
}
