/** A lower-cased `like` pattern matching `text` anywhere, with `%`, `_` and `!` escaped by `!`. */
export function likeContains(text: string): string {
  return `%${text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

/**
 * A SQLite `glob` pattern matching `text` anywhere, case-insensitively beyond ASCII: each letter
 * becomes a class of its case forms (`é` → `[éÉ]`), and `*`, `?` and `[` are bracketed to be
 * literal. SQLite's own `lower()` and `like` fold ASCII only, so `lower(name) like '%éclair%'`
 * misses "Éclair".
 */
export function globContainsAnyCase(text: string): string {
  let pattern = '*';
  for (const c of text) {
    const forms = new Set([c, c.toLowerCase(), c.toUpperCase()].filter((form) => [...form].length === 1));
    if (forms.size > 1) pattern += `[${[...forms].join('')}]`;
    else pattern += c === '*' || c === '?' || c === '[' ? `[${c}]` : c;
  }
  return `${pattern}*`;
}
