/**
 * The JSON Schemas shipped in schema/ are what the zod config schemas generate (`npm run schema`), and
 * they accept every shipped configuration and scenario, whose first line points an editor at them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { DEFAULT_RISK_GUARD_CONFIG } from '../../src/risk/config.js';
import { configSchemas, schemaText } from '../../src/runtime/config-schema.js';
import { REPO } from '../backtest/helpers.js';

const generated = new Map(configSchemas().map((f) => [f.file, f]));
const samples: Record<string, string> = {
  'config/paper.yaml': 'run-config.json',
  'config/sandbox-run.yaml': 'run-config.json',
  'config/sandbox.yaml': 'sandbox-config.json',
};
const SCHEMA_LINE = /^# yaml-language-server: \$schema=\.\.\/schema\/(.+\.json)$/;

function validator(file: string) {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  return ajv.compile(generated.get(file)!.schema);
}

describe('config JSON Schemas', () => {
  it('the shipped schema files are the generated ones', () => {
    for (const f of generated.values()) {
      expect(readFileSync(path.join(REPO, 'schema', f.file), 'utf8'), `schema/${f.file} is stale: run npm run schema`).toBe(schemaText(f));
    }
  });

  it('every shipped configuration and scenario names its schema on its first line and validates against it', () => {
    const files = [
      ...readdirSync(path.join(REPO, 'config')).map((f) => `config/${f}`),
      ...readdirSync(path.join(REPO, 'backtest')).map((f) => `backtest/${f}`),
    ].filter((f) => f.endsWith('.yaml'));
    expect(files.length).toBeGreaterThan(4);
    for (const f of files) {
      const text = readFileSync(path.join(REPO, f), 'utf8');
      const schema = SCHEMA_LINE.exec(text.split('\n')[0]!)?.[1];
      expect(schema, `${f}: first line`).toBe(samples[f] ?? 'backtest-scenario.json');
      const validate = validator(schema!);
      const ok = validate(parse(text));
      expect(ok ? [] : validate.errors, f).toEqual([]);
    }
  });

  it('catches what the loader refuses: an unknown risk key, an unknown rules value', () => {
    const validate = validator('run-config.json');
    const base = parse(readFileSync(path.join(REPO, 'config/paper.yaml'), 'utf8'));
    expect(validate({ ...base, risk: { killSwitch: { shar: 0.2 } } })).toBe(false);
    expect(validate.errors!.some((e) => e.instancePath === '/risk/killSwitch' && e.keyword === 'additionalProperties')).toBe(true);
    expect(validator('backtest-scenario.json')({ ...parse(readFileSync(path.join(REPO, 'backtest/zero-cost-orcl-2001.yaml'), 'utf8')), rules: 'maybe' })).toBe(false);
  });
});

describe('the risk keys are documented where users look', () => {
  const readme = readFileSync(path.join(REPO, 'src/risk/README.md'), 'utf8');
  const paper = readFileSync(path.join(REPO, 'config/paper.yaml'), 'utf8');
  const rootReadme = readFileSync(path.join(REPO, 'README.md'), 'utf8');

  it('every key of every risk block is in src/risk/README.md and config/paper.yaml, linked from the README', () => {
    const risk = paper.slice(paper.indexOf('\nrisk:'));
    for (const [block, value] of Object.entries(DEFAULT_RISK_GUARD_CONFIG)) {
      const keys = typeof value === 'object' && value !== null && !Decimal.isDecimal(value) ? Object.keys(value) : [];
      const rows = readme.split('\n').filter((l) => l.startsWith(`| \`${block}.`));
      expect(rows.length, `risk.${block} in src/risk/README.md`).toBeGreaterThan(0);
      expect(risk, `risk.${block} in config/paper.yaml`).toMatch(new RegExp(`\\n  (# )?${block}:`));
      if (block === 'strategies' || block === 'accounts') continue;
      for (const key of keys) {
        expect(rows.some((r) => new RegExp(`\\.${key}\\b`).test(r)), `risk.${block}.${key} in src/risk/README.md`).toBe(true);
        expect(risk.slice(risk.search(new RegExp(`\\n  (# )?${block}:`))), `risk.${block}.${key} in config/paper.yaml`).toMatch(new RegExp(`\\b${key}\\b`));
      }
    }
    expect(rootReadme).toContain('(src/risk/README.md#configuration-every-risk-key)');
  });
});
