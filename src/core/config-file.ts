/**
 * YAML configuration files validated against a zod schema. Every error names the file, the line, the
 * dotted key and what was expected, because a trader who mistypes `maxDailyDrawdown` at 3 a.m. must
 * see which line to fix, not a stack trace. `${VAR}` in any string is replaced from the environment
 * (for secrets); an unset variable is an error naming it and the key. A value that is nothing but
 * `${VAR}` (`port: ${PORT}`) becomes a number or a boolean where the schema wants one.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import type { Document, LineCounter, Node } from 'yaml';
import type { z } from 'zod';
import { ConfigError } from './errors.js';
import { didYouMean } from './suggest.js';

let loadedYaml: typeof Yaml | undefined;

/**
 * The yaml library, loaded when a file is first read: a backtest from command-line flags, or a plugin
 * importing 'propbot', reads none, and loading it is ~70 modules. Required, not imported, because
 * these functions are synchronous; under Node the package's entry is CommonJS either way, so this is
 * the very module an `import` would give. The build bundles it (scripts/bundle.ts), still run here.
 */
function yaml(): typeof Yaml {
  loadedYaml ??= createRequire(import.meta.url)('yaml') as typeof Yaml;
  return loadedYaml;
}

export interface LoadConfigOptions {
  /** Environment for `${VAR}` interpolation; defaults to process.env. */
  env?: Record<string, string | undefined>;
  /** Name shown in errors instead of the path (e.g. 'embedded default'). */
  displayName?: string;
}

/** Read and validate a YAML file. */
export function loadConfigFile<S extends z.ZodType>(file: string, schema: S, options: LoadConfigOptions = {}): z.output<S> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError('', `cannot read the config file: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, { file });
  }
  return parseConfigText(text, schema, { ...options, displayName: options.displayName ?? file });
}

/** Validate YAML text. */
export function parseConfigText<S extends z.ZodType>(text: string, schema: S, options: LoadConfigOptions = {}): z.output<S> {
  const file = options.displayName;
  const { LineCounter, parseDocument } = yaml();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) {
    const line = first.linePos?.[0]?.line;
    throw new ConfigError('', `not valid YAML: ${first.message.split('\n')[0]}`, { file, line });
  }
  const raw: unknown = toPlain(doc, lineCounter, file) ?? {};
  const env = options.env ?? process.env;
  const whole = new Map<string, string>();
  const interpolated = interpolate(raw, [], env, (path) => lineOf(doc.contents, path, lineCounter), file, whole);
  let result = schema.safeParse(interpolated);
  // Environment values are text: where the schema wants a number or a boolean at a key that was all
  // `${VAR}`, read the text as one (and say so if it is not) instead of failing with "expected number".
  for (let tries = 0; !result.success && tries < 64; tries += 1) {
    const fix = result.error.issues.find((i) => i.code === 'invalid_type' && whole.has(i.path.map(String).join('.')));
    if (!fix) break;
    const at = fix.path.map(String);
    const text = whole.get(at.join('.'))!;
    whole.delete(at.join('.'));
    const expected = (fix as { expected?: string }).expected;
    const value = expected === 'boolean' ? ({ true: true, false: false } as Record<string, boolean>)[text.trim()] : /^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : undefined;
    if (value === undefined) {
      throw new ConfigError(at.join('.'), `expected a ${expected} from the environment, got ${JSON.stringify(text)}`, { file, line: lineOf(doc.contents, at, lineCounter) });
    }
    setAt(interpolated, at, value);
    result = schema.safeParse(interpolated);
  }
  if (result.success) return result.data;
  const issue = firstIssue(result.error.issues, interpolated);
  const path = issue.path.map(String);
  // An unknown key is reported at the key itself, not at its parent.
  const keys = (issue as { keys?: string[] }).keys;
  const at = issue.code === 'unrecognized_keys' && keys?.length ? [...path, keys[0]!] : path;
  let message = issue.message;
  if (issue.code === 'unrecognized_keys' && keys?.length) {
    const known = keysAt(schema, issue.path);
    // No key near the one given (`markets` where a scenario has `data`): the ones allowed here, so the
    // right one is found without the schema.
    const hint = didYouMean(keys[0]!, known) || (known.length > 0 && known.length <= 30 ? `; the keys here: ${known.join(', ')}` : '');
    message = `unknown key${keys.length > 1 ? 's' : ''} ${keys.map((k) => `"${k}"`).join(', ')}${hint}`;
  }
  // A mistyped choice (`phase: fundd`): the value nearest among the allowed ones.
  const given = valueAt(interpolated, issue.path);
  const values = (issue as { values?: unknown[] }).values;
  if (issue.code === 'invalid_value' && typeof given === 'string' && values?.every((v) => typeof v === 'string')) {
    message += didYouMean(given, values as string[]);
  }
  throw new ConfigError(at.join('.'), message, { file, line: lineOf(doc.contents, at, lineCounter) });
}

/**
 * The issue to report: the first, except that a mistyped key makes two, the unknown key and the
 * missing one beside it; the unknown key is the one to name (with its suggestion).
 */
function firstIssue(issues: readonly z.core.$ZodIssue[], input: unknown): z.core.$ZodIssue {
  const unknown = issues.find((i) => i.code === 'unrecognized_keys');
  if (!unknown) return issues[0]!;
  const at = unknown.path.map(String).join('.');
  const missingBeside = (i: z.core.$ZodIssue) => i.path.length > 0 && i.path.slice(0, -1).map(String).join('.') === at && valueAt(input, i.path) === undefined;
  return issues.some(missingBeside) ? unknown : issues[0]!;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

/** What zod's own definitions hold, as far as finding an object's keys needs (zod 4's `_zod.def`). */
interface SchemaDef {
  type: string;
  innerType?: SchemaNode;
  in?: SchemaNode;
  getter?: () => SchemaNode;
  shape?: Record<string, SchemaNode>;
  element?: SchemaNode;
  valueType?: SchemaNode;
  options?: SchemaNode[];
}
interface SchemaNode {
  _zod?: { def?: SchemaDef };
}

/** The keys the schema allows at `path` (for "did you mean"); a union gives its options' keys together. */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  const keys = new Set<string>();
  const visit = (node: SchemaNode | undefined, at: number, depth: number): void => {
    const def = node?._zod?.def;
    if (!def || depth > 64) return;
    if (def.innerType) return visit(def.innerType, at, depth + 1); // optional, default, nullable, …
    if (def.type === 'pipe') return visit(def.in, at, depth + 1);
    if (def.type === 'lazy' && def.getter) return visit(def.getter(), at, depth + 1);
    if (def.type === 'union' && def.options) return def.options.forEach((o) => visit(o, at, depth + 1));
    if (at === path.length) {
      if (def.type === 'object' && def.shape) for (const k of Object.keys(def.shape)) keys.add(k);
      return;
    }
    const part = String(path[at]);
    if (def.type === 'object') return visit(def.shape?.[part], at + 1, depth + 1);
    if (def.type === 'array') return visit(def.element, at + 1, depth + 1);
    if (def.type === 'record') return visit(def.valueType, at + 1, depth + 1);
  };
  visit(schema as unknown as SchemaNode, 0, 0);
  return [...keys];
}

/**
 * The document as plain data. Expanding aliases can blow up (a "billion laughs" file makes the yaml
 * library refuse with `Excessive alias count`): that is a ConfigError naming the top-level key whose
 * value expands too far, and its line, instead of a stack trace.
 */
function toPlain(doc: Document, counter: LineCounter, file: string | undefined): unknown {
  try {
    return doc.toJS();
  } catch (err) {
    if (!(err instanceof ReferenceError)) throw err;
    const reason = `not usable YAML: ${err.message} (its aliases expand to too many values)`;
    const { isMap, isScalar } = yaml();
    if (isMap(doc.contents)) {
      for (const pair of doc.contents.items) {
        try {
          (pair.value as Node | null)?.toJS(doc);
        } catch {
          throw new ConfigError(isScalar(pair.key) ? String(pair.key.value) : '', reason, { file, line: offsetLine(pair.key as Node, counter) });
        }
      }
    }
    throw new ConfigError('', reason, { file });
  }
}

/** The last file parsed for a line, kept while its text is the same: a sweep may locate the same key for each of thousands of combinations. */
let lastParsed: { file: string; text: string; doc: Document; counter: LineCounter } | undefined;

function parsedForLines(file: string): { doc: Document; counter: LineCounter } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  if (lastParsed?.file !== file || lastParsed.text !== text) {
    const { LineCounter, parseDocument } = yaml();
    const counter = new LineCounter();
    lastParsed = { file, text, doc: parseDocument(text, { lineCounter: counter }), counter };
  }
  return lastParsed;
}

/**
 * The 1-based line of the key at `path` in a YAML file, or undefined when the file cannot be read or
 * does not spell that key (a default applies). For errors found after loading, such as a store file
 * that cannot be created.
 */
export function configKeyLine(file: string, path: readonly string[]): number | undefined {
  const parsed = parsedForLines(file);
  if (parsed === undefined) return undefined;
  const { isMap, isScalar, isSeq } = yaml();
  const { doc, counter } = parsed;
  let node = doc.contents as Node | null | undefined;
  let line: number | undefined;
  for (const key of path) {
    if (isSeq(node)) {
      // `data.0.file`: an index into a list
      node = node.items[Number(key)] as Node | undefined;
      if (!node) return undefined;
      line = offsetLine(node, counter);
      continue;
    }
    if (!isMap(node)) return undefined;
    const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
    if (!pair) return undefined;
    line = offsetLine(pair.key as Node, counter);
    node = pair.value as Node | null;
  }
  return line;
}

/**
 * `err` with the config file and the line of its key when it is a ConfigError that does not name them
 * yet: one raised after the file was read (a strategy's name or parameters, a data file's range) knows
 * its key, and the line is found here.
 */
export function locateConfigError(err: unknown, file: string): unknown {
  if (!(err instanceof ConfigError) || err.line !== undefined || (err.file !== undefined && err.file !== file)) return err;
  const line = err.path === '' ? undefined : configKeyLine(file, err.path.split('.'));
  return new ConfigError(err.path, err.reason, { file, ...(line !== undefined ? { line } : {}), cause: err });
}

/** 1-based line of the node at `path`, or of its nearest existing ancestor. */
function lineOf(root: unknown, path: readonly string[], counter: LineCounter): number | undefined {
  const { isMap, isScalar, isSeq } = yaml();
  let node = root as Node | null | undefined;
  let line = offsetLine(node, counter);
  for (const key of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
      if (!pair) break;
      const keyLine = offsetLine(pair.key as Node, counter);
      node = pair.value as Node | null;
      line = keyLine ?? offsetLine(node, counter) ?? line;
    } else if (isSeq(node)) {
      const item = node.items[Number(key)] as Node | undefined;
      if (!item) break;
      node = item;
      line = offsetLine(node, counter) ?? line;
    } else break;
  }
  return line;
}

function offsetLine(node: Node | null | undefined, counter: LineCounter): number | undefined {
  const start = node?.range?.[0];
  return start === undefined ? undefined : counter.linePos(start).line;
}

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function interpolate(
  value: unknown,
  path: string[],
  env: Record<string, string | undefined>,
  line: (path: string[]) => number | undefined,
  file: string | undefined,
  whole: Map<string, string>,
): unknown {
  if (typeof value === 'string') {
    const replaced = value.replace(VAR, (_m, name: string) => {
      const v = env[name];
      if (v === undefined) {
        throw new ConfigError(path.join('.'), `environment variable ${name} is not set`, { file, line: line(path) });
      }
      return v;
    });
    if (/^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(value.trim())) whole.set(path.join('.'), replaced);
    return replaced;
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolate(v, [...path, String(i)], env, line, file, whole));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = interpolate(v, [...path, k], env, line, file, whole);
    return out;
  }
  return value;
}

function setAt(root: unknown, path: readonly string[], value: unknown): void {
  let node = root as Record<string, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[path[path.length - 1]!] = value;
}
