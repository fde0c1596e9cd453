/**
 * The body of `propbot strategies`: the shipped examples and the plugins of a folder, each with its
 * name, version, description and parameters with their defaults, read from the plugin itself.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { Decimal } from 'decimal.js';
import type { z } from 'zod';
import { ConfigError } from '../core/errors.js';
import { PACKAGE_ROOT } from '../core/package.js';
import { importStrategy } from '../strategy/loader.js';

export interface ParamListing {
  readonly name: string;
  /** The default as text (JSON for strings, booleans and numbers, plain for decimals); null: none. */
  readonly default: string | null;
  /** Must be given (no default, not optional). */
  readonly required: boolean;
  /** Allowed values of an enum parameter. */
  readonly choices?: readonly string[];
  /** What it is, from the schema's `.describe()`. */
  readonly description?: string;
}

export interface StrategyListing {
  readonly file: string;
  readonly shipped: boolean;
  readonly name?: string;
  readonly version?: string;
  readonly description?: string;
  readonly params?: readonly ParamListing[];
  /** Why the file is not a usable strategy. */
  readonly error?: string;
}

const PLUGIN = /^(?!.*\.d\.[mc]?ts$).+\.(?:ts|mts|js|mjs)$/;

export async function listStrategies(dir: string | undefined): Promise<StrategyListing[]> {
  const out: StrategyListing[] = [];
  for (const file of pluginFiles(path.join(PACKAGE_ROOT, 'strategies'))) out.push(await describe(file, true));
  if (dir !== undefined) {
    const folder = path.resolve(dir);
    let files: string[];
    try {
      files = pluginFiles(folder);
    } catch (error) {
      throw new ConfigError('--dir', `cannot read ${folder}: ${(error as Error).message}`);
    }
    for (const file of files) out.push(await describe(file, false));
  }
  return out;
}

function pluginFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true })
    .filter((e) => e.isFile() && PLUGIN.test(e.name))
    .map((e) => path.join(folder, e.name))
    .sort();
}

async function describe(file: string, shipped: boolean): Promise<StrategyListing> {
  try {
    const { strategy } = await importStrategy(file);
    const shape = strategy.params.shape as Record<string, z.ZodType>;
    return {
      file,
      shipped,
      name: strategy.name,
      version: strategy.version,
      ...(strategy.description !== undefined ? { description: strategy.description } : {}),
      params: Object.entries(shape).map(([name, schema]) => paramListing(name, schema)),
    };
  } catch (error) {
    return { file, shipped, error: (error as Error).message };
  }
}

function paramListing(name: string, schema: z.ZodType): ParamListing {
  const parsed = schema.safeParse(undefined);
  const value = parsed.success && parsed.data !== undefined ? (Decimal.isDecimal(parsed.data) ? (parsed.data as Decimal).toString() : JSON.stringify(parsed.data)) : null;
  const choices = enumChoices(schema);
  const description = wrapped(schema).map((s) => s.description).find((d) => d !== undefined && d !== '');
  return { name, default: value, required: !parsed.success, ...(choices ? { choices } : {}), ...(description !== undefined ? { description } : {}) };
}

type Wrapped = z.ZodType & { _zod?: { def?: { type?: string; innerType?: Wrapped; entries?: Record<string, unknown> } } };

/** The schema and those its default/optional wrappers hold, outermost first (zod 4's definition objects). */
function wrapped(schema: z.ZodType): Wrapped[] {
  const out: Wrapped[] = [];
  for (let s: Wrapped | undefined = schema as Wrapped; s && out.length < 6; s = s._zod?.def?.innerType) out.push(s);
  return out;
}

/** The options of an enum, under its default/optional wrappers. */
function enumChoices(schema: z.ZodType): string[] | undefined {
  const entries = wrapped(schema).find((s) => s._zod?.def?.type === 'enum')?._zod?.def?.entries;
  return entries ? Object.values(entries).map(String) : undefined;
}

/** The listing as the terminal shows it. */
export function formatListing(listing: readonly StrategyListing[]): string {
  const lines: string[] = [];
  let section: boolean | undefined;
  for (const s of listing) {
    if (s.shipped !== section) {
      section = s.shipped;
      lines.push(s.shipped ? 'Shipped examples (use them by name: --strategy sma-cross):' : `Plugins in ${path.dirname(s.file)}:`);
    }
    if (s.error !== undefined) {
      lines.push(`  ${path.basename(s.file)}: not loaded: ${s.error}`);
      continue;
    }
    lines.push(`  ${s.name} ${s.version}${s.description ? ` — ${s.description}` : ''}`);
    lines.push(`    file: ${s.file}`);
    const params = s.params ?? [];
    if (params.length === 0) lines.push('    no parameters');
    const width = Math.max(0, ...params.map((p) => p.name.length));
    const values = params.map((p) => p.default ?? (p.required ? '(required)' : '(optional)'));
    const valueWidth = Math.max(0, ...values.map((v) => v.length));
    for (const [i, p] of params.entries()) {
      const choices = p.choices ? `one of ${p.choices.join(', ')}` : '';
      const about = p.description ? (choices ? `${p.description.replace(/\.$/, '')} (${choices})` : p.description) : choices;
      lines.push(`    ${p.name.padEnd(width)}  ${about ? `${values[i]!.padEnd(valueWidth)}  ${about}` : values[i]}`.trimEnd());
    }
  }
  return `${lines.join('\n')}\n`;
}
