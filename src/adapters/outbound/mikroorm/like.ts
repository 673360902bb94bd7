/** A lower-cased `like` pattern matching `text` anywhere, with `%`, `_` and `!` escaped by `!`. */
export function likeContains(text: string): string {
  return `%${text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
}
