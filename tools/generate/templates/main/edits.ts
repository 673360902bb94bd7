import { nestedListPaths, type ResourceModel } from '../../model.js';

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

/** `resourceModule(Invoice, …)`: the resource's entry in MODULES, found by its entity class. */
export const moduleEntry = (pascal: string): RegExp => new RegExp(`\\bresourceModule\\(\\s*${pascal}\\s*[,)]`);

const MODULE_IMPORT = /^import .* from '(\.\/[^']+)';$/;
const MODULE_LIST = /(export const MODULES: readonly FeatureModule\[\] = \[)([^\]]*)(\];)/;

/**
 * `src/main/modules/index.ts`: imports the resource's module (among the imports, sorted by path as
 * they are) and appends it to MODULES. Already listed: the text is left as it is.
 */
export const moduleListEdit: Edit = (m, current) => {
  const name = m.names.pluralCamel;
  const path = `./${name}.js`;
  const list = MODULE_LIST.exec(current);
  if (!list) throw new Error('src/main/modules/index.ts: the MODULES list was not found');
  const entries = (list[2] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const lines = current.split('\n');
  const imports = lines.flatMap((line, index) => {
    const match = MODULE_IMPORT.exec(line);
    return match ? [{ index, path: match[1] ?? '' }] : [];
  });
  if (!imports.some((i) => i.path === path)) {
    const next = imports.find((i) => i.path.toLowerCase() > path.toLowerCase());
    const at = next?.index ?? (imports.at(-1)?.index ?? -1) + 1;
    lines.splice(at, 0, `import { ${name} } from '${path}';`);
  }
  const updated = lines.join('\n');
  return entries.includes(name) ? updated : updated.replace(MODULE_LIST, `$1${[...entries, name].join(', ')}$3`);
};

/**
 * The rules a resource brings (README: Add a resource): `user` reads, `moderator` does everything —
 * on the collection, the item, and each nested list under a referenced row (the list's rules).
 */
export function policyRules(m: ResourceModel): { role: string; path: string; action: string }[] {
  const collection = `/api/v1/${m.names.pluralKebab}`;
  const item = `${collection}/{id}`;
  const nested = nestedListPaths(m);
  return [
    { role: 'user', path: collection, action: 'GET' },
    { role: 'user', path: item, action: 'GET' },
    ...nested.map((path) => ({ role: 'user', path, action: 'GET' })),
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
export const policyEdit: Edit = (m, current) => {
  const endsWithNewline = current.endsWith('\n');
  const lines = current.split('\n');
  if (endsWithNewline) lines.pop();
  for (const rule of policyRules(m)) {
    const policies = lines.flatMap((line, index) => {
      const [kind, role, path] = cells(line);
      return kind === 'p' ? [{ index, role: role ?? '', path: path ?? '' }] : [];
    });
    if (policies.some((p) => p.role === rule.role && p.path === rule.path)) continue;
    const ofRole = policies.filter((p) => p.role === rule.role);
    const after = ofRole.find((p) => p.path > rule.path);
    const at = after?.index ?? (ofRole.at(-1) ?? policies.at(-1))?.index ?? -1;
    lines.splice(after ? at : at + 1, 0, `p, ${rule.role}, ${rule.path}, ${rule.action}`);
  }
  return lines.join('\n') + (endsWithNewline ? '\n' : '');
};
