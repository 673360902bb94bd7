import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** One instruction of a Dockerfile: `COPY --from=build /app/dist dist` → `{ keyword: 'COPY', flags: {from: 'build'}, args: [...] }`. */
export interface Instruction {
  keyword: string;
  flags: Record<string, string>;
  /** The arguments: the exec form's JSON array, or the shell form split on white space. */
  args: string[];
  /** The arguments as written (after the flags), for RUN and the shell form. */
  text: string;
}

export interface Stage {
  image: string;
  name: string | undefined;
  instructions: Instruction[];
}

/** Parses a Dockerfile into its stages: comments dropped, `\` continuations joined, `--flag=value` options split off. */
export function parseDockerfile(text: string): Stage[] {
  const logical: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.startsWith('#')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    logical.push(pending + line);
    pending = '';
  }
  if (pending !== '') logical.push(pending.trim());

  const stages: Stage[] = [];
  for (const line of logical) {
    const match = /^(\S+)\s*(.*)$/.exec(line)!;
    const keyword = match[1]!.toUpperCase();
    let rest = match[2]!;
    const flags: Record<string, string> = {};
    for (let flag = /^--([a-z-]+)=(\S+)\s*/.exec(rest); flag; flag = /^--([a-z-]+)=(\S+)\s*/.exec(rest)) {
      flags[flag[1]!] = flag[2]!;
      rest = rest.slice(flag[0].length);
    }
    const args = rest.startsWith('[') ? (JSON.parse(rest) as string[]) : rest.split(/\s+/).filter((a) => a !== '');
    const instruction: Instruction = { keyword, flags, args, text: rest };
    if (keyword === 'FROM') {
      const as = args.findIndex((a) => a.toUpperCase() === 'AS');
      stages.push({ image: args[0]!, name: as >= 0 ? args[as + 1] : undefined, instructions: [] });
    } else {
      if (stages.length === 0) throw new Error(`${keyword} before the first FROM`);
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return stages;
}

/** The COPY instructions of a stage as `{sources, destination, from}`. */
export function copies(stage: Stage): { sources: string[]; destination: string; from: string | undefined }[] {
  return stage.instructions
    .filter((i) => i.keyword === 'COPY')
    .map((i) => ({ sources: i.args.slice(0, -1), destination: i.args.at(-1)!, from: i.flags.from }));
}

/** A `.dockerignore` glob as a regular expression over a slash-separated path (`*` and `?` stop at `/`, `**` does not). */
function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      source += '.*';
      i++;
      if (glob[i + 1] === '/') i++;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/**
 * Docker's `.dockerignore` rule: patterns in order, `!` re-includes, the last pattern that matches
 * the path or one of its parent folders decides.
 */
export function dockerIgnore(text: string): (path: string) => boolean {
  const rules = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const include = l.startsWith('!');
      const pattern = (include ? l.slice(1) : l).trim().replace(/^\/+/, '').replace(/\/+$/, '');
      return { include, pattern: globToRegExp(pattern) };
    });
  return (path) => {
    const parts = path.split('/');
    const prefixes = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    let excluded = false;
    for (const rule of rules) if (prefixes.some((p) => rule.pattern.test(p))) excluded = !rule.include;
    return excluded;
  };
}

/** The files a COPY source stands for in the repository: its git-tracked files (the file itself for a file). */
export function trackedFiles(root: string, source: string): string[] {
  const full = join(root, source);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [source];
  try {
    return execFileSync('git', ['ls-files', '-z', '--', source], { cwd: root, encoding: 'utf8' })
      .split('\0')
      .filter((p) => p !== '');
  } catch {
    const walk = (dir: string): string[] =>
      readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? walk(`${dir}/${e.name}`) : [`${dir}/${e.name}`],
      );
    return walk(source);
  }
}

export const readRepoFile = (root: string, path: string): string => readFileSync(join(root, path), 'utf8');
