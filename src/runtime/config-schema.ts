/**
 * JSON Schemas of propbot's YAML files, generated from the zod schemas that validate them (zod 4's
 * `z.toJSONSchema`), so an editor completes and checks a configuration as it is typed
 * (`# yaml-language-server: $schema=...` at the top of a file). `npm run schema` writes them to
 * `schema/`; a test checks that the shipped files are what this code generates.
 */
import { z } from 'zod';
import { RiskGuardConfigSchema } from '../risk/config.js';
import { sandboxConfigSchema } from '../sandbox/config.js';
import { RunConfigSchema } from './run-config.js';
import { ScenarioSchema } from './scenario.js';

export interface ConfigSchemaFile {
  /** File name under `schema/`. */
  readonly file: string;
  readonly schema: Record<string, unknown>;
}

const BASE = 'https://propbot.dev/schema/';

function generate(schema: z.ZodType, file: string, title: string, description: string): ConfigSchemaFile {
  // The input side: what a user writes (decimals as strings or numbers, defaults optional). Values zod
  // checks in code only (a Decimal instance) have no JSON form and accept anything there.
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  return { file, schema: { ...json, $id: BASE + file, title, description } };
}

export function configSchemas(): ConfigSchemaFile[] {
  return [
    generate(RunConfigSchema, 'run-config.json', 'propbot run configuration', 'The YAML file of `propbot run --config` (config/paper.yaml).'),
    generate(sandboxConfigSchema, 'sandbox-config.json', 'propbot sandbox configuration', 'The YAML file of `propbot sandbox --config` (config/sandbox.yaml).'),
    // A scenario keeps its `risk` as written (checked against the guard's schema, see scenario.ts); an
    // editor is given the guard's schema itself, with its keys and defaults.
    generate(ScenarioSchema.unwrap().extend({ risk: RiskGuardConfigSchema.optional() }), 'backtest-scenario.json', 'propbot backtest scenario', 'The YAML file of `propbot backtest <scenario>` (backtest/*.yaml).'),
  ];
}

/** The text a schema file holds: stable key order as generated, two-space indent, final newline. */
export function schemaText(file: ConfigSchemaFile): string {
  return JSON.stringify(file.schema, null, 2) + '\n';
}
